import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNT_EVERY, MAX_SESSIONS_PER_USER } from '../../src/sessions/session-service.js';
import { call, login } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

/** `count` logins of one account, 50 at a time, the i-th from `address(i)`: each answered 200. */
async function storm(
  t: TestTessera,
  username: string,
  password: string,
  count: number,
  address: (i: number) => string,
) {
  const payload = JSON.stringify({ username, password });
  for (let i = 0; i < count; i += 50) {
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, j) =>
        t.app.inject({ method: 'POST', url: '/v1/users/authorize', payload, remoteAddress: address(i + j) }),
      ),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(answers.map(() => 200));
  }
}

/**
 * A storm of cheap successes: logins of one account answered from the verified-credentials
 * cache (no throttle, no hash) from many addresses. It must not push the record of changes out
 * of an event log kept at its size, nor grow the store by a row a login.
 */
describe('a login storm of one account (role none), from 2,000 addresses', () => {
  let t: TestTessera;
  let admin: string;
  let uid: number;
  let first: string;
  const LOGINS = 2_000;

  beforeAll(async () => {
    t = await testTessera({ eventLogMax: 1000 });
    await t.addUser('root', 'root-password', 'admin');
    admin = await login(t, 'root', 'root-password');
    for (let i = 0; i < 5; i++)
      await call(t, 'POST', '/v1/users', {
        auth: admin,
        body: { name: `made-${i}`, password: 'Made-password-1', role: 'db_viewer' },
      });
    await call(t, 'PUT', '/v1/cluster', { auth: admin, body: { password_min_length: 10 } });
    uid = await t.addUser('nobody', 'nobody-password', 'none');
    first = await login(t, 'nobody', 'nobody-password');
    t.advance(0.001); // the first session older than the storm's (the test clock stands still: ties are in any order), in the same second
    await storm(t, 'nobody', 'nobody-password', LOGINS, (i) => `2001:db8::${i.toString(16)}`);
    // Written, and pruned as a server does once a minute.
    await t.tessera.eventWriter.flush();
    t.advance(61);
    await call(t, 'POST', '/v1/users/authorize', { body: { username: 'nobody', password: 'nobody-password' } });
    await t.tessera.eventWriter.flush();
  }, 120_000);
  afterAll(() => t.close());

  it('keeps every change in the event log; the logins take a bounded share of it', async () => {
    const events = (await call(t, 'GET', '/v1/logs?limit=10000', { auth: admin })).body as {
      type: string;
      count?: number;
    }[];
    expect(events.length).toBeLessThanOrEqual(1000);
    expect(events.filter((e) => e.type === 'user_created')).toHaveLength(7); // root, five, nobody
    expect(events.filter((e) => e.type === 'cluster_updated')).toHaveLength(1);
    const logins = events.filter((e) => e.type === 'authorize');
    // A quarter of the log at the prune, and the one login after it (from another address: a row of its own).
    // The storm's rows fold by the writer's flushes: on a busy machine there are more of them, and the cap is met.
    expect(logins.length).toBeLessThanOrEqual(250 + 1);
    expect(logins.length).toBeGreaterThan(0);
  });

  it('keeps about a hundred live sessions of the account, ending (never hiding) the oldest; the newest still refresh', async () => {
    const live = await t.tessera.sessions.list(null, uid);
    expect(live.length).toBeLessThanOrEqual(MAX_SESSIONS_PER_USER + COUNT_EVERY);
    expect(live.length).toBeGreaterThanOrEqual(MAX_SESSIONS_PER_USER);
    // The first login's session was ended as any end is: its token is refused, not left alive unlisted.
    expect((await call(t, 'GET', `/v1/users/${uid}`, { auth: first })).status).toBe(401);
    const token = await login(t, 'nobody', 'nobody-password');
    expect((await call(t, 'POST', '/v1/users/refresh_jwt', { auth: token, body: {} })).status).toBe(200);
  });
});

describe('a login storm of one account from a few addresses', () => {
  it('costs a bounded number of rows: past a hundred live sessions, a login joins the newest of its address', async () => {
    const t = await testTessera();
    try {
      const uid = await t.addUser('bot', 'bot-password-1', 'none');
      await storm(t, 'bot', 'bot-password-1', 2_000, (i) => `2001:db8::${(i % 20).toString(16)}`);
      const rows = async (table: 'sessions' | 'revocations') =>
        Number(
          (
            await t.tessera.db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      expect(await rows('sessions')).toBeLessThanOrEqual(MAX_SESSIONS_PER_USER + 2 * COUNT_EVERY + 20);
      expect(await rows('revocations')).toBeLessThanOrEqual(2 * COUNT_EVERY + 20);
      expect((await t.tessera.sessions.list(null, uid)).length).toBeLessThanOrEqual(
        MAX_SESSIONS_PER_USER + COUNT_EVERY,
      );
    } finally {
      await t.close();
    }
  }, 60_000);
});

describe('repeated logins of one account from one address', () => {
  it('are folded into one event row with a count', async () => {
    const t = await testTessera();
    try {
      await t.addUser('root', 'root-password', 'admin');
      const admin = await login(t, 'root', 'root-password');
      await t.tessera.eventWriter.flush();
      for (let i = 0; i < 200; i++) await login(t, 'root', 'root-password');
      await t.tessera.eventWriter.flush();
      const logins = (await call(t, 'GET', '/v1/logs?type=authorize', { auth: admin })).body as { count?: number }[];
      expect(logins.length).toBeLessThan(10);
      expect(logins.reduce((n, e) => n + (e.count ?? 1), 0)).toBe(201);
    } finally {
      await t.close();
    }
  });
});

describe("a storm of a user's changes to itself (its alert settings, as often as it likes)", () => {
  it('keeps every change made to others; a change that changes nothing is not one', async () => {
    const t = await testTessera({ eventLogMax: 1000 });
    try {
      await t.addUser('root', 'root-password', 'admin');
      const admin = await login(t, 'root', 'root-password');
      for (let i = 0; i < 4; i++)
        await call(t, 'POST', '/v1/users', { auth: admin, body: { name: `made-${i}`, password: 'Made-password-1' } });
      await call(t, 'POST', '/v1/roles', { auth: admin, body: { name: 'Ops', management: 'cluster_member' } });
      const uid = await t.addUser('viewer', 'viewer-password', 'db_viewer');
      const viewer = await login(t, 'viewer', 'viewer-password');
      const set = (on: boolean) => call(t, 'PUT', `/v1/users/${uid}`, { auth: viewer, body: { email_alerts: on } });
      // Sent as it is: no change, no event.
      await t.tessera.eventWriter.flush();
      const before = (await call(t, 'GET', `/v1/logs?type=user_updated`, { auth: admin })).body.length;
      expect((await set(true)).status).toBe(200);
      await t.tessera.eventWriter.flush();
      expect((await call(t, 'GET', `/v1/logs?type=user_updated`, { auth: admin })).body).toHaveLength(before);
      for (let i = 0; i < 1_200; i += 20)
        await Promise.all(Array.from({ length: 20 }, (_, j) => set((i + j) % 2 === 0)));
      await t.tessera.eventWriter.flush();
      t.advance(61);
      await login(t, 'root', 'root-password');
      await t.tessera.eventWriter.flush();
      const events = (await call(t, 'GET', '/v1/logs?limit=10000', { auth: admin })).body as { type: string }[];
      expect(events.length).toBeLessThanOrEqual(1000);
      expect(events.filter((e) => e.type === 'user_created')).toHaveLength(6); // root, four, viewer
      expect(events.filter((e) => e.type === 'role_create')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'user_updated').length).toBeLessThanOrEqual(250);
    } finally {
      await t.close();
    }
  }, 60_000);
});
