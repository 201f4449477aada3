import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeConfig } from '../../src/config/config.js';
import { openTessera } from '../../src/tessera.js';
import { call, login } from '../helpers/http.js';
import { FAST_ARGON2, type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
let root: string;
let uid: number;
beforeEach(async () => {
  t = await testTessera();
  await t.addUser('root', 'root-password', 'admin');
  uid = await t.addUser('heidi', 'heidi-password-1', 'db_member');
  root = await login(t, 'root', 'root-password');
});
afterEach(() => t.close());

const me = (auth: string) => call(t, 'GET', `/v1/users/${uid}`, { auth });
const refresh = (auth: string) => call(t, 'POST', '/v1/users/refresh_jwt', { auth });

describe('token revocation', () => {
  it.each([
    ['deleted', () => call(t, 'DELETE', `/v1/users/${uid}`, { auth: root })],
    ['given a new role', () => call(t, 'PUT', `/v1/users/${uid}`, { auth: root, body: { role: 'db_viewer' } })],
    [
      'given a new password',
      () =>
        call(t, 'PUT', '/v1/users/password', {
          auth: root,
          body: { username: 'heidi', new_password: 'heidi-password-2' },
        }),
    ],
    [
      "given a new password by an admin's PUT /v1/users/{uid}",
      () => call(t, 'PUT', `/v1/users/${uid}`, { auth: root, body: { password: 'heidi-password-3' } }),
    ],
  ])('ends every token of a user who is %s, on every route and on refresh', async (_what, change) => {
    const token = await login(t, 'heidi', 'heidi-password-1');
    expect((await me(token)).status).toBe(200);
    await change();
    const after = await me(token);
    expect(after.status).toBe(401);
    expect(after.body.error_code).toBe('invalid_token');
    expect((await refresh(token)).status).toBe(401);
  });

  it('keeps the tokens of a user locked out by failed logins, but refreshes none while locked', async () => {
    const token = await login(t, 'heidi', 'heidi-password-1');
    for (let i = 0; i < 5; i++)
      await call(t, 'POST', '/v1/users/authorize', { body: { username: 'heidi', password: 'wrong-pass' } });
    expect((await me(token)).body.status).toBe('locked');
    const renewed = await refresh(token);
    expect(renewed.status).toBe(401);
    expect(renewed.body.error_code).toBe('account_locked');
    expect(renewed.headers['retry-after']).toBe('1800');
  });

  it("keeps other users' tokens and the user's new ones working", async () => {
    await call(t, 'PUT', `/v1/users/${uid}`, { auth: root, body: { role: 'db_viewer' } });
    expect((await call(t, 'GET', '/v1/users', { auth: root })).status).toBe(200);
    const fresh = await login(t, 'heidi', 'heidi-password-1');
    expect((await me(fresh)).body.role).toBe('db_viewer');
  });

  it('ends just the presented token on logout', async () => {
    const first = await login(t, 'heidi', 'heidi-password-1');
    const second = await login(t, 'heidi', 'heidi-password-1');
    expect((await call(t, 'POST', '/v1/users/logout', { auth: first })).status).toBe(200);
    expect((await me(first)).status).toBe(401);
    expect((await refresh(first)).status).toBe(401);
    expect((await me(second)).status).toBe(200);
  });

  it('sees revocations made by another process on the same store (the CLI) at its next poll', async () => {
    const token = await login(t, 'heidi', 'heidi-password-1');
    expect((await me(token)).status).toBe(200);
    const other = await openTessera(makeConfig({ dataDir: t.dataDir, argon2: FAST_ARGON2 }));
    try {
      await other.passwordChanges.expire(null, uid, { ip: 'local', requestId: 'cli' });
      const user = (await other.users.getByUid(uid))!;
      await other.passwordChanges.replace(null, user, 'heidi-password-9', { ip: 'local', requestId: 'cli' });
    } finally {
      await other.close();
    }
    await t.tessera.revocations.poll();
    expect((await me(token)).status).toBe(401);
  });

  it('answers 400 to a logout with Basic credentials: there is no token to end', async () => {
    const res = await call(t, 'POST', '/v1/users/logout', { auth: t.basic('root', 'root-password') });
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe('invalid_request');
    expect(res.body.message).toContain('JWT');
  });

  it('keeps logouts across a restart of the store', async () => {
    const token = await login(t, 'heidi', 'heidi-password-1');
    await call(t, 'POST', '/v1/users/logout', { auth: token });
    const again = await testTessera({ dataDir: t.dataDir });
    try {
      const res = await again.app.inject({ method: 'GET', url: `/v1/users/${uid}`, headers: { authorization: token } });
      expect(res.statusCode).toBe(401);
    } finally {
      await again.app.close();
      await again.tessera.close();
    }
  });
});
