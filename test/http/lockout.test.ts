import { afterEach, describe, expect, it, vi } from 'vitest';
import { lockoutKey } from '../../src/guard/lockout.js';
import { call, login } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
let uid: number;
afterEach(() => t.close());

async function setup(policy: Record<string, number | boolean> = {}) {
  t = await testTessera({ authRateLimit: 0 });
  await t.addUser('root', 'root-password', 'admin');
  uid = await t.addUser('grace', 'grace-password-1', 'cluster_member');
  if (Object.keys(policy).length) await t.tessera.policy.update(policy);
}

const attempt = (username: string, password: string) =>
  call(t, 'POST', '/v1/users/authorize', { body: { username, password } });

describe('login lockout', () => {
  it('locks after the threshold, refuses even the right password without a hash check, and an admin unlocks', async () => {
    await setup();
    for (let i = 0; i < 5; i++)
      expect((await attempt('grace', `wrong-${i}`)).body.error_code).toBe('invalid_credentials');
    const verify = vi.spyOn(t.tessera.hasher, 'verify');
    const locked = await attempt('grace', 'grace-password-1');
    expect(locked.status).toBe(401);
    expect(locked.body.error_code).toBe('account_locked');
    expect(locked.headers['retry-after']).toBe('1800'); // the default duration
    expect(locked.body.message).toMatch(/unlocks in 1800 s, or an admin can unlock it now/);
    expect(verify).not.toHaveBeenCalled();

    const root = await login(t, 'root', 'root-password');
    expect((await call(t, 'GET', `/v1/users/${uid}`, { auth: root })).body.status).toBe('locked');
    const unlocked = await call(t, 'POST', `/v1/users/${uid}/unlock`, { auth: root });
    expect(unlocked.status).toBe(200);
    expect(unlocked.body.status).toBe('active');
    expect((await attempt('grace', 'grace-password-1')).status).toBe(200);
  });

  it('names the login as typed in the audit line of every refusal, also of logins that wait on one check of the same credentials', async () => {
    await setup();
    const refused: (string | undefined)[] = [];
    t.tessera.events.on(
      'audited',
      (r) => r.event === 'authorize' && r.outcome === 'failure' && refused.push(r.username),
    );
    for (let i = 0; i < 5; i++) await attempt('grace', `wrong-${i}`);
    // Locked now: three at once with the same credentials (one checks, the others wait for it), in two spellings.
    const find = t.tessera.users.findByUsername.bind(t.tessera.users);
    vi.spyOn(t.tessera.users, 'findByUsername').mockImplementation(async (name) => {
      await new Promise((resolve) => setTimeout(resolve, 100)); // the check under way while the others arrive
      return find(name);
    });
    await Promise.all([attempt('grace', 'same'), attempt('grace', 'same'), attempt('GRACE', 'same')]);
    expect(refused.slice(5).sort()).toEqual(['GRACE', 'grace', 'grace']);
  });

  it('counts case and Unicode variants of a name as the same user', async () => {
    await setup({ login_lockout_threshold: 3 });
    for (const name of ['GRACE', 'Ｇrace', 'grace']) await attempt(name, 'wrong-password');
    expect((await attempt('grace', 'grace-password-1')).body.error_code).toBe('account_locked');
  });

  it('lifts the lock when the duration passes; duration 0 holds until an admin unlocks', async () => {
    await setup({ login_lockout_threshold: 2, login_lockout_duration: 60 });
    await attempt('grace', 'wrong-1');
    await attempt('grace', 'wrong-2');
    const locked = await attempt('grace', 'grace-password-1');
    expect(locked.body.error_code).toBe('account_locked');
    expect(locked.headers['retry-after']).toBe('60');
    t.advance(20);
    expect((await attempt('grace', 'grace-password-1')).headers['retry-after']).toBe('40'); // what is left
    t.advance(41);
    expect((await attempt('grace', 'grace-password-1')).status).toBe(200);

    await t.tessera.policy.update({ login_lockout_duration: 0 });
    await attempt('grace', 'wrong-1');
    await attempt('grace', 'wrong-2');
    t.advance(86_400 * 30);
    const forever = await attempt('grace', 'grace-password-1');
    expect(forever.body.error_code).toBe('account_locked');
    expect(forever.headers['retry-after']).toBeUndefined();
    expect(forever.body.message).toMatch(/until an admin unlocks it/);
  });

  it('starts the count again after login_lockout_counter_reset_after, and after a success', async () => {
    await setup({ login_lockout_threshold: 3, login_lockout_counter_reset_after: 100 });
    await attempt('grace', 'wrong-1');
    await attempt('grace', 'wrong-2');
    t.advance(101);
    await attempt('grace', 'wrong-3');
    await attempt('grace', 'wrong-4');
    expect((await attempt('grace', 'grace-password-1')).status).toBe(200);
    await attempt('grace', 'wrong-5');
    await attempt('grace', 'wrong-6');
    expect((await attempt('grace', 'grace-password-1')).status).toBe(200);
  });

  it('is lifted by a password reset', async () => {
    await setup({ login_lockout_threshold: 1 });
    await attempt('grace', 'wrong-1');
    const root = await login(t, 'root', 'root-password');
    await call(t, 'PUT', '/v1/users/password', {
      auth: root,
      body: { username: 'grace', new_password: 'grace-password-2' },
    });
    expect((await attempt('grace', 'grace-password-2')).status).toBe(200);
  });

  it('throttles unknown names like known ones, and creates no user', async () => {
    await setup({ login_lockout_threshold: 2 });
    const before = await t.tessera.users.count();
    await attempt('nobody', 'wrong-1');
    await attempt('nobody', 'wrong-2');
    const third = await attempt('nobody', 'wrong-3');
    expect(third.body.error_code).toBe('account_locked');
    expect(await t.tessera.users.count()).toBe(before);
  });

  it('keeps a name nobody has under a key of fixed size, whatever its length (a 16 KB Basic username)', async () => {
    await setup({ login_lockout_threshold: 2 });
    const long = 'n'.repeat(16_384);
    expect(lockoutKey(undefined, long).length).toBeLessThan(64);
    expect(lockoutKey(undefined, long)).toBe(lockoutKey(undefined, long));
    expect(lockoutKey(undefined, long)).not.toBe(lockoutKey(undefined, `${long}x`));
    const basic = t.basic(long, 'guess');
    for (let i = 0; i < 3; i++) {
      const res = await call(t, 'GET', '/v1/users', { auth: basic });
      expect([res.status, res.body.error_code]).toEqual([401, i < 2 ? 'invalid_credentials' : 'account_locked']);
    }
  });

  it('is off with threshold 0', async () => {
    await setup({ login_lockout_threshold: 0 });
    for (let i = 0; i < 20; i++) await attempt('grace', `wrong-${i}`);
    expect((await attempt('grace', 'grace-password-1')).status).toBe(200);
  });

  it('is exact under concurrency: 50 parallel wrong attempts verify exactly threshold passwords', async () => {
    await setup();
    const verify = vi.spyOn(t.tessera.hasher, 'verify');
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => attempt('grace', `wrong-${i}`)));
    const codes = results.map((r) => r.body.error_code);
    expect(codes.filter((c) => c === 'invalid_credentials')).toHaveLength(5);
    expect(codes.filter((c) => c === 'account_locked')).toHaveLength(45);
    expect(verify).toHaveBeenCalledTimes(5);
    expect((await attempt('grace', 'grace-password-1')).body.error_code).toBe('account_locked');
  });

  it('refuses a locked user at once, without waiting for a hashing thread', async () => {
    t = await testTessera({ authRateLimit: 0, loginQueueMs: 0 }); // no line at all: a full pool refuses
    await t.addUser('grace', 'grace-password-1');
    for (let u = 0; u < 10; u++) await t.addUser(`busy-${u}`, `busy-password-${u}`);
    for (let i = 0; i < 5; i++) await attempt('grace', `wrong-${i}`);
    const busy = Array.from({ length: 40 }, (_, i) => attempt(`busy-${i % 10}`, `busy-password-${i % 10}`));
    const locked = await Promise.all(Array.from({ length: 10 }, () => attempt('grace', 'grace-password-1')));
    expect(locked.map((r) => r.body.error_code)).toEqual(Array(10).fill('account_locked'));
    const others = await Promise.all(busy);
    expect(others.some((r) => r.body.error_code === 'try_again')).toBe(true); // the pool was full
  });

  it('never locks anyone for concurrent successful logins', async () => {
    await setup();
    const results = await Promise.all(Array.from({ length: 30 }, () => attempt('grace', 'grace-password-1')));
    expect(results.map((r) => r.status)).toEqual(Array(30).fill(200));
    expect((await t.tessera.users.getByUid(uid))!.lockedUntil).toBeNull();
  });
});

describe('client throttling', () => {
  it('answers 429 with Retry-After past the per-address limit, without counting toward lockout', async () => {
    t = await testTessera({ authRateLimit: 3 });
    await t.addUser('grace', 'grace-password-1');
    for (let i = 0; i < 3; i++) expect((await attempt('grace', 'wrong-password')).status).toBe(401);
    const throttled = await attempt('grace', 'grace-password-1');
    expect(throttled.status).toBe(429);
    expect(throttled.body.error_code).toBe('too_many_requests');
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    const fromElsewhere = await t.app.inject({
      method: 'POST',
      url: '/v1/users/authorize',
      remoteAddress: '10.9.9.9',
      payload: JSON.stringify({ username: 'grace', password: 'grace-password-1' }),
    });
    expect(fromElsewhere.statusCode).toBe(200);
  });
});

describe('logins of one user waiting for a lockout lease', () => {
  it('wait in a line that is woken, not polled, and past 64 waiting are refused at once', async () => {
    t = await testTessera({ authRateLimit: 0 });
    await t.addUser('grace', 'grace-password-1');
    const guard = (t.tessera.lockout as unknown as { guard: { reserve: (...a: unknown[]) => Promise<string> } }).guard;
    const reserve = vi.spyOn(guard, 'reserve');
    const results = await Promise.all(Array.from({ length: 100 }, () => attempt('grace', 'grace-password-1')));
    const codes = results.map((r) => r.body.error_code ?? 'ok');
    // 5 leases at once, 64 in line: 69 served; the other 31 are told to come back.
    expect(codes.filter((c) => c === 'ok').length).toBeGreaterThanOrEqual(69);
    expect(codes.filter((c) => c !== 'ok').every((c) => c === 'try_again')).toBe(true);
    // About one reservation a login, plus the first-in-line's polls: not one a waiter every few ms.
    expect(reserve.mock.calls.length).toBeLessThan(300);
    expect((await t.tessera.users.findByUsername('grace'))!.lockedUntil).toBeNull();
  });
});
