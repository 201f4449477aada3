import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../src/policy/policy.js';
import { call, login } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
let root: string;
beforeEach(async () => {
  t = await testTessera();
  await t.addUser('root', 'root-password', 'admin');
  await t.addUser('ivan', 'ivan-password-1', 'user_manager');
  root = await login(t, 'root', 'root-password');
});
afterEach(() => t.close());

describe('GET/PUT /v1/cluster/policy', () => {
  it('starts at the defaults and is for admins only', async () => {
    expect((await call(t, 'GET', '/v1/cluster/policy', { auth: root })).body).toEqual(DEFAULT_POLICY);
    const manager = await login(t, 'ivan', 'ivan-password-1');
    expect((await call(t, 'GET', '/v1/cluster/policy', { auth: manager })).status).toBe(403);
    expect((await call(t, 'PUT', '/v1/cluster/policy', { auth: manager, body: { password_min_length: 12 } })).status).toBe(403);
  });

  it('changes what it names, keeps the rest, and persists', async () => {
    const res = await call(t, 'PUT', '/v1/cluster/policy', { auth: root, body: { password_min_length: 12, login_lockout_threshold: 0 } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...DEFAULT_POLICY, password_min_length: 12, login_lockout_threshold: 0 });
    const again = await testTessera({ dataDir: t.dataDir });
    try {
      expect(await again.tessera.policy.get()).toEqual(res.body);
    } finally {
      await again.app.close();
      await again.tessera.close();
    }
  });

  it.each([
    { password_min_length: 7 },
    { password_min_length: 257 },
    { password_expiration_duration: 3651 },
    { login_lockout_threshold: -1 },
    { login_lockout_counter_reset_after: 0 },
    { login_lockout_duration: 86401 },
    { password_complexity: 'yes' },
    { unknown_setting: 1 },
  ])('refuses %j with 400 and changes nothing', async (body) => {
    const res = await call(t, 'PUT', '/v1/cluster/policy', { auth: root, body });
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe('invalid_request');
    expect(await t.tessera.policy.get()).toEqual(DEFAULT_POLICY);
  });

  it('is effective at once for new passwords', async () => {
    await call(t, 'PUT', '/v1/cluster/policy', { auth: root, body: { password_min_length: 16, password_complexity: true } });
    const create = (password: string) =>
      call(t, 'POST', '/v1/users', { auth: root, body: { username: 'judy', password, role: 'none' } });
    expect((await create('Sh0rt!pass')).body.error_code).toBe('password_not_complex');
    expect((await create('long-enough-but-simple')).body.error_code).toBe('password_not_complex');
    expect((await create('Judy-Is-My-N4me-Here')).body.error_code).toBe('password_not_complex');
    expect((await create('Baaaa-4-very-long-one')).body.error_code).toBe('password_not_complex');
    expect((await create('Tr1cky-Long-Phrase!')).status).toBe(200);
  });

  it('expires passwords older than password_expiration_duration days', async () => {
    await call(t, 'PUT', '/v1/cluster/policy', { auth: root, body: { password_expiration_duration: 1 } });
    t.advance(86_400 + 1);
    const res = await call(t, 'POST', '/v1/users/authorize', { body: { username: 'ivan', password: 'ivan-password-1' } });
    expect(res.status).toBe(401);
    expect(res.body.error_code).toBe('password_expired');
  });
});
