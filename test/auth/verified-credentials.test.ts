import { afterEach, describe, expect, it, vi } from 'vitest';
import { call, login } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
const others: TestTessera[] = [];
afterEach(async () => {
  for (const o of others.splice(0)) {
    await o.app.close();
    await o.tessera.close();
  }
  await t.close();
});

async function setUp(overrides: Parameters<typeof testTessera>[0] = {}) {
  t = await testTessera({ authRateLimit: 0, ...overrides });
  await t.addUser('root', 'root-password', 'admin');
  const uid = await t.addUser('bot', 'bot-password-1', 'cluster_viewer');
  const verify = vi.spyOn(t.tessera.hasher, 'verify');
  const read = (password: string, on: TestTessera = t) =>
    call(on, 'GET', `/v1/users/${uid}`, { auth: t.basic('bot', password) });
  return { uid, verify, read };
}

describe('the verified-credentials cache', () => {
  it('answers repeated Basic calls without a hash, and a wrong password still with a full verification', async () => {
    const { verify, read } = await setUp();
    const byName = vi.spyOn(t.tessera.users, 'findByUsername');
    const byUid = vi.spyOn(t.tessera.users, 'getByUid');
    const reads = () => byName.mock.calls.length + byUid.mock.calls.length;
    for (let i = 0; i < 20; i++) expect((await read('bot-password-1')).status).toBe(200);
    expect(verify).toHaveBeenCalledTimes(1);
    // Found by its name to be verified, then read once more by its uid, and trusted for a second.
    expect(reads()).toBe(2);
    t.advance(1.5);
    expect((await read('bot-password-1')).status).toBe(200);
    expect([verify.mock.calls.length, reads()]).toEqual([1, 3]); // then read again, not verified again
    expect((await read('bot-password-2')).status).toBe(401);
    expect(verify).toHaveBeenCalledTimes(2);
    expect((await read('bot-password-1')).status).toBe(200);
    expect(verify).toHaveBeenCalledTimes(2);
  });

  it('forgets a password when it changes, the role changes, the user is locked, deleted or its password expires', async () => {
    const { uid, verify, read } = await setUp();
    const root = await login(t, 'root', 'root-password');
    await read('bot-password-1');
    await call(t, 'PUT', `/v1/users/${uid}`, { auth: root, body: { password: 'bot-password-2' } });
    expect((await read('bot-password-1')).status).toBe(401);
    expect((await read('bot-password-2')).status).toBe(200);
    const afterChange = verify.mock.calls.length;
    await call(t, 'PUT', `/v1/users/${uid}`, { auth: root, body: { role: 'db_viewer' } });
    expect((await read('bot-password-2')).status).toBe(200);
    expect(verify.mock.calls.length).toBe(afterChange + 1); // verified again after the role change
    await t.tessera.users.lock(uid, new Date(Date.now() + 3_600_000), new Date());
    expect((await read('bot-password-2')).body.error_code).toBe('account_locked');
    await call(t, 'POST', `/v1/users/${uid}/unlock`, { auth: root });
    await read('bot-password-2');
    await call(t, 'POST', `/v1/users/${uid}/expire-password`, { auth: root });
    expect((await read('bot-password-2')).body.error_code).toBe('password_expired');
    await call(t, 'DELETE', `/v1/users/${uid}`, { auth: root });
    expect((await read('bot-password-2')).status).toBe(401);
  });

  it('forgets after --auth-cache-seconds, and is off with 0', async () => {
    const { verify, read } = await setUp({ authCacheSeconds: 60 });
    await read('bot-password-1');
    await read('bot-password-1');
    expect(verify).toHaveBeenCalledTimes(1);
    t.advance(61);
    await read('bot-password-1');
    expect(verify).toHaveBeenCalledTimes(2);
    await t.close();
    const off = await setUp({ authCacheSeconds: 0 });
    for (let i = 0; i < 3; i++) await off.read('bot-password-1');
    expect(off.verify).toHaveBeenCalledTimes(3);
  });

  it('is not counted by the throttle: many cached calls pass, guessing is still throttled', async () => {
    const { read } = await setUp({ authRateLimit: 5 });
    for (let i = 0; i < 50; i++) expect((await read('bot-password-1')).status).toBe(200);
    const guesses = [];
    for (let i = 0; i < 6; i++) guesses.push((await read(`guess-${i}`)).status);
    expect(guesses.slice(0, 4)).toEqual([401, 401, 401, 401]); // 5 a minute: the first right one and 4 guesses
    expect(guesses.slice(4)).toEqual([429, 429]);
    expect((await read('bot-password-1')).status).toBe(200); // still served from the cache
  });

  it('stops matching on another node at its next revocation poll when the password changes there', async () => {
    const { uid, read } = await setUp();
    const other = await testTessera({ dataDir: t.dataDir, authRateLimit: 0 });
    others.push(other);
    expect((await read('bot-password-1', other)).status).toBe(200); // remembered on the other node
    await t.tessera.userUpdate.update(null, uid, { password: 'bot-password-2' }, { ip: 'local', requestId: 'test' });
    await other.tessera.revocations.poll(); // every REVOCATION_POLL_MS on a running node
    expect((await read('bot-password-1', other)).status).toBe(401);
    expect((await read('bot-password-2', other)).status).toBe(200);
  });
});
