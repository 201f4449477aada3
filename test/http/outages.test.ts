import { afterEach, describe, expect, it } from 'vitest';
import { call, login } from '../helpers/http.js';
import { metricValue } from '../helpers/metrics.js';
import { type FaultProxy, freshPostgres, freshRedisPrefix, proxyTo, REDIS_URL } from '../helpers/services.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function until<T>(probe: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The answer and how long it took. */
async function timed<T>(work: () => Promise<T>): Promise<T & { ms: number }> {
  const started = Date.now();
  const result = await work();
  return { ...result, ms: Date.now() - started };
}

const LOGIN_TIMEOUT_MS = 3000;
/** What an answer "within the deadline" may take beyond it on a busy 2-core machine. */
const SLACK_MS = 700;

const rootLogin = (t: TestTessera) =>
  call(t, 'POST', '/v1/users/authorize', { body: { username: 'root', password: 'root-password' } });

async function onProxiedPostgres(): Promise<{ t: TestTessera; proxy: FaultProxy; token: string }> {
  const pg = await freshPostgres();
  cleanups.push(pg.drop);
  const proxy = await proxyTo(pg.url);
  cleanups.push(proxy.close);
  const t = await testTessera({ databaseUrl: proxy.url, authRateLimit: 0, loginTimeoutMs: LOGIN_TIMEOUT_MS });
  cleanups.push(t.close);
  await t.addUser('root', 'root-password', 'admin');
  const token = await login(t, 'root', 'root-password');
  expect((await call(t, 'GET', '/readyz')).body).toEqual({ status: 'ready', store: true });
  return { t, proxy, token };
}

describe('when PostgreSQL goes away', () => {
  for (const fault of ['refused', 'partitioned'] as const) {
    it(`(${fault}) answers logins and reads with 503 store_unavailable within the deadline, keeps /healthz, and recovers by itself`, async () => {
      const { t, proxy, token } = await onProxiedPostgres();
      if (fault === 'refused') await proxy.cut();
      else proxy.partition();

      const logins = await Promise.all(Array.from({ length: 20 }, () => timed(() => rootLogin(t))));
      for (const r of logins) {
        expect(r.status).toBe(503);
        expect(r.body.error_code).toBe('store_unavailable');
        expect(r.headers['retry-after']).toBeDefined();
        expect(r.ms).toBeLessThan(LOGIN_TIMEOUT_MS + SLACK_MS);
      }
      const read = await timed(() => call(t, 'GET', '/v1/users', { auth: token }));
      expect(read.status).toBe(503);
      expect(read.body.error_code).toBe('store_unavailable');
      expect(read.ms).toBeLessThan(2000 + SLACK_MS);
      expect(await metricValue(t, 'tessera_logins_total', { outcome: 'unavailable', api_line: '7.4' })).toBe(20);
      expect(await metricValue(t, 'tessera_store_errors_total', { kind: 'unavailable' })).toBe(21);
      const ready = await timed(() => call(t, 'GET', '/readyz'));
      expect(ready.status).toBe(503);
      expect(ready.body.error_code).toBe('not_ready');
      expect(ready.ms).toBeLessThan(1000 + SLACK_MS);
      const health = await timed(() => call(t, 'GET', '/healthz'));
      expect(health.status).toBe(200);
      expect(health.ms).toBeLessThan(100);

      await proxy.restore();
      expect(
        (
          await until(
            () => rootLogin(t),
            (r) => r.status === 200,
          )
        ).status,
      ).toBe(200);
      expect(
        (
          await until(
            () => call(t, 'GET', '/v1/users', { auth: token }),
            (r) => r.status === 200,
          )
        ).status,
      ).toBe(200);
      expect((await call(t, 'GET', '/readyz')).status).toBe(200);
    });

    it(`(${fault}) loses no acknowledged write across the fault and never answers 500`, async () => {
      const { t, proxy, token } = await onProxiedPostgres();
      const acknowledged: string[] = [];
      const statuses = new Map<number, number>();
      let n = 0;
      const write = async () => {
        const username = `writer-${n++}`;
        const r = await call(t, 'POST', '/v1/users', {
          auth: token,
          body: { username, password: 'a-long-passphrase', role: 'none' },
        });
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        if (r.status === 200) acknowledged.push(username);
        else expect(r.body.error_code).toBe('store_unavailable');
      };
      const stream = async (ms: number) => {
        const end = Date.now() + ms;
        while (Date.now() < end) await Promise.all([write(), write(), write()]);
      };
      const writing = stream(4000);
      await new Promise((r) => setTimeout(r, 800));
      if (fault === 'refused') await proxy.cut();
      else proxy.partition();
      await new Promise((r) => setTimeout(r, 2500));
      await proxy.restore();
      await writing;
      await until(
        () => call(t, 'GET', '/v1/users', { auth: token }),
        (r) => r.status === 200,
      );
      await stream(500); // and writes work again

      expect([...statuses.keys()].sort()).toEqual([200, 503]);
      const stored = new Set(
        ((await call(t, 'GET', '/v1/users', { auth: token })).body as { username: string }[]).map((u) => u.username),
      );
      for (const name of acknowledged) expect(stored.has(name)).toBe(true);
    });
  }
});

describe('when Redis goes away', () => {
  async function setup(failOpen: boolean, fault: 'refused' | 'partitioned') {
    const proxy = await proxyTo(REDIS_URL);
    cleanups.push(proxy.close);
    const t = await testTessera({
      redisUrl: proxy.url,
      redisKeyPrefix: freshRedisPrefix(),
      redisFailOpen: failOpen,
      loginTimeoutMs: LOGIN_TIMEOUT_MS,
    });
    cleanups.push(t.close);
    await t.addUser('root', 'root-password', 'admin');
    await t.addUser('ops', 'ops-password-1', 'admin');
    await until(
      () => call(t, 'GET', '/readyz'),
      (r) => r.status === 200,
    );
    expect((await rootLogin(t)).status).toBe(200);
    if (fault === 'refused') await proxy.cut();
    else proxy.partition();
    return { t, proxy };
  }

  for (const fault of ['refused', 'partitioned'] as const) {
    it(`(${fault}) refuses logins that need a verification within the deadline by default (fail closed), and recovers by itself`, async () => {
      const { t, proxy } = await setup(false, fault);
      // A password verified a moment ago needs no lockout counter (it is no guess): served from the verified-credentials cache.
      expect((await rootLogin(t)).status).toBe(200);
      const opsLogin = () =>
        call(t, 'POST', '/v1/users/authorize', { body: { username: 'ops', password: 'ops-password-1' } });
      const down = await timed(opsLogin);
      expect(down.status).toBe(503);
      expect(down.body.error_code).toBe('guard_unavailable');
      expect(down.ms).toBeLessThan(LOGIN_TIMEOUT_MS + SLACK_MS);
      expect(await metricValue(t, 'tessera_logins_total', { outcome: 'unavailable', api_line: '7.4' })).toBe(1);
      expect(await metricValue(t, 'tessera_redis_errors_total', { kind: 'lockout' })).toBeGreaterThan(0);
      const ready = await timed(() => call(t, 'GET', '/readyz'));
      expect(ready.body.message).toContain('redis');
      expect(ready.ms).toBeLessThan(1000 + SLACK_MS);
      expect((await call(t, 'GET', '/healthz')).status).toBe(200);
      await proxy.restore();
      expect((await until(opsLogin, (r) => r.status === 200)).status).toBe(200);
    });
  }

  it('counts on the node alone when told to fail open', async () => {
    const { t } = await setup(true, 'refused');
    expect((await rootLogin(t)).status).toBe(200);
    for (let i = 0; i < 5; i++)
      await call(t, 'POST', '/v1/users/authorize', { body: { username: 'root', password: 'wrong-pass' } });
    expect((await rootLogin(t)).body.error_code).toBe('account_locked');
  });
});
