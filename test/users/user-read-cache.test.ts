import { afterEach, describe, expect, it } from 'vitest';
import { CLI_CONTEXT } from '../../src/audit/audit-log.js';
import { makeConfig } from '../../src/config/config.js';
import { openAccounts } from '../../src/tessera.js';
import { call, login } from '../helpers/http.js';
import { FAST_ARGON2, type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
afterEach(() => t.close());

describe('the user read cache behind GET /v1/users/{uid}', () => {
  it("shows this process's changes at once", async () => {
    t = await testTessera();
    await t.addUser('root', 'root-password', 'admin');
    const uid = await t.addUser('rita', 'rita-password-1');
    const root = await login(t, 'root', 'root-password');
    expect((await call(t, 'GET', `/v1/users/${uid}`, { auth: root })).body.email).toBe('');
    await call(t, 'PUT', `/v1/users/${uid}`, { auth: root, body: { email: 'rita@example.com' } });
    expect((await call(t, 'GET', `/v1/users/${uid}`, { auth: root })).body.email).toBe('rita@example.com');
    await login(t, 'rita', 'rita-password-1');
    expect((await call(t, 'GET', `/v1/users/${uid}`, { auth: root })).body.last_login).toEqual(expect.any(Number));
    await call(t, 'DELETE', `/v1/users/${uid}`, { auth: root });
    expect((await call(t, 'GET', `/v1/users/${uid}`, { auth: root })).status).toBe(404);
  });

  it("shows a policy change of this process's at once (the answer is made again)", async () => {
    t = await testTessera();
    await t.addUser('root', 'root-password', 'admin');
    const uid = await t.addUser('ivy', 'ivy-password-1');
    t.advance(3 * 86_400);
    const root = await login(t, 'root', 'root-password');
    for (let i = 0; i < 2; i++)
      expect((await call(t, 'GET', `/v1/users/${uid}`, { auth: root })).body.status).toBe('active');
    expect(
      (await call(t, 'PUT', '/v1/cluster', { auth: root, body: { password_expiration_duration: 2 } })).status,
    ).toBe(200);
    expect((await call(t, 'GET', `/v1/users/${uid}`, { auth: root })).body.status).toBe('password_expired');
  });

  it('shows changes made by another process within a second', async () => {
    const started = Date.now();
    t = await testTessera();
    await t.addUser('root', 'root-password', 'admin');
    const uid = await t.addUser('sam', 'sam-password-1');
    const root = await login(t, 'root', 'root-password');
    expect((await call(t, 'GET', `/v1/users/${uid}`, { auth: root })).body.status).toBe('active');
    const cli = await openAccounts(makeConfig({ dataDir: t.dataDir, argon2: FAST_ARGON2 }));
    try {
      await cli.passwordChanges.expire(null, uid, CLI_CONTEXT);
    } finally {
      await cli.close();
    }
    // A second on, and past the real time the other process expired it at (its clock is the real one).
    t.advance(Math.max(1, Math.ceil((Date.now() - started) / 1000)));
    expect((await call(t, 'GET', `/v1/users/${uid}`, { auth: root })).body.status).toBe('password_expired');
  });
});
