import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

/**
 * docs/api.md against the OpenAPI document the server serves. Each request is a table row whose
 * first cell is `METHOD /path`; anywhere else on the page, a `METHOD /path` in backticks must be
 * a request of the document too (its query and an optional part in brackets left aside).
 */
const API_MD = readFileSync(path.resolve(import.meta.dirname, '../../docs/api.md'), 'utf8');
const METHODS = 'GET|PUT|POST|DELETE|PATCH|HEAD|OPTIONS';

const listed = new Set(
  [...API_MD.matchAll(new RegExp(`^\\| \`(${METHODS}) (/[^\`\\s?]*)\` \\|`, 'gm'))].map((m) => `${m[1]} ${m[2]}`),
);
const mentioned = new Set(
  [...API_MD.matchAll(new RegExp(`\`(${METHODS}) (/[^\`\\s?[]*)`, 'g'))].map((m) => `${m[1]} ${m[2]}`),
);

describe('docs/api.md', () => {
  let t: TestTessera;
  let documented: Set<string>;
  beforeAll(async () => {
    t = await testTessera();
    const res = await call(t, 'GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    const paths = res.body.paths as Record<string, Record<string, unknown>>;
    documented = new Set(
      Object.entries(paths).flatMap(([route, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${route}`)),
    );
  });
  afterAll(() => t?.close());

  it('lists every request of the OpenAPI document in a table row of its own', () => {
    expect(documented.size).toBeGreaterThan(40);
    const missing = [...documented].filter((request) => !listed.has(request));
    expect(missing, 'requests the server serves that docs/api.md does not list').toEqual([]);
  });

  it('names no request that the OpenAPI document does not have', () => {
    const unknown = [...mentioned].filter((request) => !documented.has(request));
    expect(unknown, 'requests docs/api.md names that the server does not serve').toEqual([]);
  });

  it('lists each request once', () => {
    const rows = [...API_MD.matchAll(new RegExp(`^\\| \`(${METHODS}) (/[^\`\\s?]*)\` \\|`, 'gm'))];
    expect(rows.length).toBe(listed.size);
  });
});
