import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, login } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
let reader: string;
let ann: string;
beforeEach(async () => {
  t = await testTessera();
  await t.addUser('svc', 'service-password', 'token_verifier');
  await t.addUser('ann', 'ann-password-1', 'cluster_viewer');
  [reader, ann] = await Promise.all([login(t, 'svc', 'service-password'), login(t, 'ann', 'ann-password-1')]);
});
afterEach(() => t.close());

const introspect = async (token: string, { form = true, auth = reader } = {}) => {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/introspect',
    headers: { authorization: auth, 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
    payload: form ? new URLSearchParams({ token }).toString() : JSON.stringify({ token }),
  });
  return { status: res.statusCode, body: res.json(), cache: res.headers['cache-control'] };
};

describe('POST /v1/introspect (RFC 7662)', () => {
  it('answers active with the claims for a good token, as a form or as JSON, never cached', async () => {
    const token = ann.slice('JWT '.length);
    for (const form of [true, false]) {
      const res = await introspect(token, { form });
      expect(res).toMatchObject({ status: 200, cache: 'no-store' });
      expect(res.body).toMatchObject({
        active: true,
        username: 'ann',
        roles: ['cluster_viewer'],
        token_type: 'Bearer',
        exp: expect.any(Number),
      });
    }
  });

  it('answers {"active": false} for a revoked, a malformed or a forged token', async () => {
    const token = ann.slice('JWT '.length);
    await call(t, 'POST', '/v1/users/logout', { auth: ann });
    expect((await introspect(token)).body).toEqual({ active: false });
    expect((await introspect('not-a-token')).body).toEqual({ active: false });
    expect((await introspect(`${token.slice(0, -4)}AAAA`)).body).toEqual({ active: false });
  });

  it('is for token_verifier and admins: others 403, nobody 401', async () => {
    const other = await login(t, 'ann', 'ann-password-1');
    expect((await introspect(other.slice(4), { auth: other })).status).toBe(403);
    expect((await introspect(other.slice(4), { auth: '' })).status).toBe(401);
  });
});
