import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tesseraProgram } from '../../src/cli/program.js';
import { call } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

/**
 * Every shell block of README.md and docs/*.md checked against the real CLI and API: each
 * `npm run tessera -- <command>` names a command that exists and only options it has;
 * each curl names a request the OpenAPI document has (method from -X, else POST with -d, else GET),
 * or one of the pages and probes beside the API. (The README's tour also runs, in readme-tour.)
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const FILES = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The commands of the shell blocks, a line each (continuations joined), with their file. */
const lines = FILES.flatMap((file) =>
  [...readFileSync(path.join(ROOT, file), 'utf8').matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```$/gm)].flatMap((m) =>
    m[1]!
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .filter((line) => line.trim() && !line.trim().startsWith('#'))
      .map((line) => ({ file, line })),
  ),
);

const cliCalls = lines.flatMap(({ file, line }) =>
  [...line.matchAll(/npm run (?:-s )?tessera -- ([^|;)&]*)/g)].map((m) => ({ file, words: m[1]!.trim().split(/\s+/) })),
);

/** Pages and probes that are not requests of the OpenAPI document. */
const NOT_API = new Set(['GET /', 'GET /docs', 'GET /metrics', 'GET /healthz', 'GET /readyz']);

const curlCalls = lines.flatMap(({ file, line }) =>
  line
    .split(/\|\||&&|;|\$\(|\|/)
    .filter((part) => /(^|\s)curl\s/.test(part))
    .map((part) => {
      const url = /(?:\$API|\$\{API\}|https?:\/\/[^/\s'"]+)(\/[^\s'"?]*)?/.exec(part);
      const method = /\s-X\s+([A-Z]+)/.exec(part)?.[1] ?? (/\s(-d|--data\S*)\s/.test(part) ? 'POST' : 'GET');
      return { file, line: part.trim(), method, route: url?.[1] ?? '/' };
    }),
);

/** `/v1/users/$OPS_UID/sessions` matches `/v1/users/{uid}/sessions`. */
function matches(template: string, route: string): boolean {
  const a = template.split('/');
  const b = route.replace(/\/$/, '').split('/');
  return (
    a.length === b.length &&
    a.every(
      (part, i) =>
        part === b[i] ||
        (part.startsWith('{') &&
          // a uid, a shell variable, a placeholder; a name parameter (a certificate's) also takes a word
          (/^(\d+|\$\S+|<\S+>)$/.test(b[i]!) || (/name\}$/.test(part) && /^[a-z_]+$/.test(b[i]!)))),
    )
  );
}

describe('the shell blocks of README.md and docs/', () => {
  it('run CLI commands that exist, with options they have', () => {
    expect(cliCalls.length).toBeGreaterThan(15);
    const wrong: string[] = [];
    for (const { file, words } of cliCalls) {
      let command: Command = tesseraProgram();
      for (const word of words) {
        const sub = /^[a-z][a-z-]*$/.test(word) ? command.commands.find((c) => c.name() === word) : undefined;
        if (sub) command = sub;
        else if (command.commands.length > 0 && !word.startsWith('-')) break;
      }
      const name = `"${words.join(' ')}"`;
      if (command.commands.length > 0 && !words.some((w) => ['--help', '--version'].includes(w)))
        wrong.push(`${file}: ${name} names no command`);
      const options = new Set(['--help', '--version', ...command.options.map((o) => o.long)]);
      for (const option of words.filter((w) => /^--[a-z]/.test(w)).map((w) => w.split('=')[0]!))
        if (!options.has(option)) wrong.push(`${file}: ${name} — ${command.name()} has no ${option}`);
    }
    expect(wrong).toEqual([]);
  });

  describe('curl', () => {
    let t: TestTessera;
    let requests: { method: string; template: string }[];
    beforeAll(async () => {
      t = await testTessera();
      const paths = (await call(t, 'GET', '/v1/openapi.json')).body.paths as Record<string, object>;
      requests = Object.entries(paths).flatMap(([template, ops]) =>
        Object.keys(ops).map((m) => ({ method: m.toUpperCase(), template })),
      );
    });
    afterAll(() => t?.close());

    it('names requests the server serves, with their method', () => {
      expect(curlCalls.length).toBeGreaterThan(40);
      const unknown = curlCalls
        .filter(
          ({ method, route }) =>
            !NOT_API.has(`${method} ${route}`) &&
            !route.startsWith('/.well-known/') &&
            !requests.some((r) => r.method === method && matches(r.template, route)),
        )
        .map(({ file, method, route, line }) => `${file}: ${method} ${route} (${line})`);
      expect(unknown).toEqual([]);
    });
  });
});
