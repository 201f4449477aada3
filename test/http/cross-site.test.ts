import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { login } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
let basic: string;
beforeEach(async () => {
  t = await testTessera({ publicUrl: 'https://tessera.example:9443', authRateLimit: 0 });
  await t.addUser('root', 'root-password', 'admin');
  basic = t.basic('root', 'root-password');
});
afterEach(() => t.close());

const create = (name: string, headers: Record<string, string>) =>
  t.app.inject({
    method: 'POST',
    url: '/v1/users',
    headers,
    payload: JSON.stringify({ name, password: 'a-long-password-1', role: 'admin' }),
  });
const exists = async (name: string) => (await t.tessera.users.findByUsername(name)) !== undefined;

/** A page of another site acting with the credentials a browser sends by itself (OWASP: Fetch Metadata, Origin). */
describe('requests from a page of another site', () => {
  it('refuses a change with Basic credentials when a browser says it comes from another site, and changes nothing', async () => {
    const foreign: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site', origin: 'https://tessera.example:9443' },
      { origin: 'https://tessera.example:9443.evil.example' },
    ];
    for (const [i, headers] of foreign.entries()) {
      const res = await create(`evil-${i}`, { authorization: basic, ...headers });
      expect([res.statusCode, res.json().error_code], JSON.stringify(headers)).toEqual([403, 'cross_site_request']);
      expect(await exists(`evil-${i}`)).toBe(false);
    }
    // The login itself with Basic, too; a body's password a page would have to know.
    const loginRes = await t.app.inject({
      method: 'POST',
      url: '/v1/users/authorize',
      headers: { authorization: basic, 'sec-fetch-site': 'cross-site' },
    });
    expect(loginRes.json().error_code).toBe('cross_site_request');
  });

  it('takes the same request from its own origin, from automation (no such headers), and a token from anywhere', async () => {
    const own: Record<string, string>[] = [
      {},
      { origin: 'https://tessera.example:9443' },
      { 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'none' },
    ];
    for (const [i, headers] of own.entries()) {
      const res = await create(`own-${i}`, { authorization: basic, ...headers });
      expect(res.statusCode, JSON.stringify(headers)).toBe(200);
    }
    const token = await login(t, 'root', 'root-password');
    expect(
      (
        await create('by-token', {
          authorization: token,
          'sec-fetch-site': 'cross-site',
          origin: 'https://evil.example',
        })
      ).statusCode,
    ).toBe(200);
    // Reading is not changing (and without CORS a page of another site cannot read the answer).
    const read = await t.app.inject({
      method: 'GET',
      url: '/v1/users',
      headers: { authorization: basic, 'sec-fetch-site': 'cross-site' },
    });
    expect(read.statusCode).toBe(200);
  });

  it('never asks a browser for Basic credentials (it would cache them for every page), only automation', async () => {
    const challenge = async (headers: Record<string, string>) =>
      (await t.app.inject({ method: 'GET', url: '/v1/users', headers })).headers['www-authenticate'];
    expect(await challenge({})).toMatch(/^Basic realm="tessera"/);
    const browsers: Record<string, string>[] = [
      { 'sec-fetch-mode': 'navigate' },
      { accept: 'text/html,application/xhtml+xml' },
      { 'x-requested-with': 'tessera-console' },
    ];
    for (const browser of browsers) {
      expect(await challenge(browser), JSON.stringify(browser)).toBe('Bearer realm="tessera"');
    }
  });
});
