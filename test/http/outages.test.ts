import { afterEach, describe, expect, it } from 'vitest';
import { call } from '../helpers/http.js';
import { freshPostgres, freshRedisPrefix, proxyTo, REDIS_URL } from '../helpers/services.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function until<T>(probe: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const login = (t: TestTessera) => call(t, 'POST', '/v1/users/authorize', { body: { username: 'root', password: 'root-password' } });

describe('when PostgreSQL goes away', () => {
  it('answers 503 store_unavailable, reports not ready, and recovers by itself', async () => {
    const pg = await freshPostgres();
    cleanups.push(pg.drop);
    const proxy = await proxyTo(pg.url);
    cleanups.push(proxy.close);
    const t = await testTessera({ databaseUrl: proxy.url });
    cleanups.push(t.close);
    await t.addUser('root', 'root-password', 'admin');
    expect((await login(t)).status).toBe(200);
    expect((await call(t, 'GET', '/readyz')).body).toEqual({ status: 'ready', store: true });

    await proxy.cut();
    const down = await login(t);
    expect(down.status).toBe(503);
    expect(down.body.error_code).toBe('store_unavailable');
    expect(down.headers['retry-after']).toBeDefined();
    const ready = await call(t, 'GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.error_code).toBe('not_ready');
    expect((await call(t, 'GET', '/healthz')).status).toBe(200);

    await proxy.restore();
    expect((await until(() => login(t), (r) => r.status === 200)).status).toBe(200);
    expect((await call(t, 'GET', '/readyz')).status).toBe(200);
  });
});

describe('when Redis goes away', () => {
  async function setup(failOpen: boolean) {
    const proxy = await proxyTo(REDIS_URL);
    cleanups.push(proxy.close);
    const t = await testTessera({ redisUrl: proxy.url, redisKeyPrefix: freshRedisPrefix(), redisFailOpen: failOpen });
    cleanups.push(t.close);
    await t.addUser('root', 'root-password', 'admin');
    await until(() => call(t, 'GET', '/readyz'), (r) => r.status === 200);
    expect((await login(t)).status).toBe(200);
    await proxy.cut();
    return { t, proxy };
  }

  it('refuses logins by default (fail closed), and recovers by itself', async () => {
    const { t, proxy } = await setup(false);
    const down = await login(t);
    expect(down.status).toBe(503);
    expect(down.body.error_code).toBe('guard_unavailable');
    expect((await call(t, 'GET', '/readyz')).body.message).toContain('redis');
    await proxy.restore();
    expect((await until(() => login(t), (r) => r.status === 200)).status).toBe(200);
  });

  it('counts on the node alone when told to fail open', async () => {
    const { t } = await setup(true);
    expect((await login(t)).status).toBe(200);
    for (let i = 0; i < 5; i++) await call(t, 'POST', '/v1/users/authorize', { body: { username: 'root', password: 'wrong-pass' } });
    expect((await login(t)).body.error_code).toBe('account_locked');
  });
});
