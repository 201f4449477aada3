import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { EventHub } from '../../src/events.js';
import { scrapeGate } from '../../src/http/scrape-access.js';
import { listenManagement } from '../../src/metrics/management-listener.js';
import { call, login } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
let closeListener: (() => Promise<void>) | undefined;
afterEach(async () => {
  await closeListener?.();
  await t?.close();
});

/** Scrapes the real metrics listener and reads the samples: "name{a="1",b="2"}" → value. */
async function scrape(): Promise<{ text: string; value: (name: string, labels?: Record<string, string>) => number }> {
  const listener = await listenManagement(
    t.tessera.metrics,
    { host: '127.0.0.1', port: 0 },
    { started: () => true, readiness: t.tessera.readiness, scrapes: scrapeGate(t.tessera) },
  );
  closeListener = () => listener.close();
  const res = await fetch(listener.url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  await listener.close();
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels = [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, k, v]) => `${k}=${v}`).sort();
    samples.set(`${m[1]}{${labels.join(',')}}`, Number(m[3]));
  }
  const value = (name: string, labels: Record<string, string> = {}) => {
    const key = `${name}{${Object.entries(labels)
      .map(([k, v]) => `${k}=${v}`)
      .sort()
      .join(',')}}`;
    return samples.get(key) ?? 0;
  };
  return { text, value };
}

describe('Prometheus metrics', () => {
  it('move by exactly what a scripted session did', async () => {
    t = await testTessera({ authRateLimit: 0 });
    await t.addUser('root', 'root-password', 'admin');
    const graceUid = await t.addUser('grace', 'grace-password-1', 'cluster_member');
    await t.tessera.policy.update({ login_lockout_threshold: 3 });

    // Logins: 2 right in 7.4, 1 right in 7.22, 3 wrong for grace (the third locks), 1 while locked.
    const root = await login(t, 'root', 'root-password');
    await login(t, 'root', 'root-password');
    expect((await call(t, 'POST', '/v1/users/authorize', { auth: t.basic('root', 'root-password') })).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      expect(
        (await call(t, 'POST', '/v1/users/authorize', { body: { username: 'grace', password: `wrong-${i}` } })).body
          .error_code,
      ).toBe('invalid_credentials');
    }
    const locked = await call(t, 'POST', '/v1/users/authorize', {
      body: { username: 'grace', password: 'grace-password-1' },
    });
    expect(locked.body.error_code).toBe('account_locked');
    // Not a login at all: a malformed request is not counted.
    expect((await call(t, 'POST', '/v1/users/authorize', { body: { username: 'x' } })).status).toBe(400);

    // Token checks: one verified, one from the cache, one invalid, one revoked, one expired.
    expect((await call(t, 'GET', `/v1/users/${graceUid}`, { auth: root })).status).toBe(200);
    expect((await call(t, 'GET', `/v1/users/${graceUid}`, { auth: root })).status).toBe(200);
    expect((await call(t, 'GET', '/v1/users', { auth: 'JWT not.a.token' })).status).toBe(401);
    const second = await login(t, 'root', 'root-password');
    expect((await call(t, 'POST', '/v1/users/logout', { auth: second })).status).toBe(200); // a valid check, then revoked
    expect((await call(t, 'GET', '/v1/users', { auth: second })).status).toBe(401);
    const shortLived = await call(t, 'POST', '/v1/users/authorize', {
      body: { username: 'root', password: 'root-password', ttl: 1 },
    });
    t.advance(60);
    expect((await call(t, 'GET', '/v1/users', { auth: `JWT ${shortLived.body.access_token}` })).status).toBe(401);

    const { text, value } = await scrape();
    expect(value('tessera_logins_total', { outcome: 'success', api_line: '7.4' })).toBe(4);
    expect(value('tessera_logins_total', { outcome: 'success', api_line: '7.22' })).toBe(1);
    expect(value('tessera_logins_total', { outcome: 'invalid_credentials', api_line: '7.4' })).toBe(3);
    expect(value('tessera_logins_total', { outcome: 'account_locked', api_line: '7.4' })).toBe(1);
    expect(value('tessera_login_duration_seconds_count', { outcome: 'success' })).toBe(5);
    expect(value('tessera_login_duration_seconds_count', { outcome: 'invalid_credentials' })).toBe(3);
    // root's first right password and grace's three wrong ones were hashed; root's four
    // later logins came from the verified-credentials cache; the locked attempt was not hashed.
    expect(value('tessera_password_verify_duration_seconds_count')).toBe(4);
    expect(value('tessera_credentials_verified_total', { realm: 'local', source: 'verified' })).toBe(1);
    expect(value('tessera_credentials_verified_total', { realm: 'local', source: 'cache' })).toBe(4);
    // The queue also carried the two hashes of the users made above.
    expect(value('tessera_login_queue_wait_seconds_count')).toBe(6);
    expect(value('tessera_login_queue_depth')).toBe(0);
    expect(value('tessera_lockouts_total')).toBe(1);
    expect(value('tessera_tokens_issued_total', { alg: 'ES256' })).toBe(5);
    expect(value('tessera_token_checks_total', { result: 'valid', cached: 'false' })).toBe(2);
    expect(value('tessera_token_checks_total', { result: 'valid', cached: 'true' })).toBe(1);
    expect(value('tessera_token_checks_total', { result: 'invalid', cached: 'false' })).toBe(1);
    expect(value('tessera_token_checks_total', { result: 'revoked', cached: 'true' })).toBe(1);
    expect(value('tessera_token_checks_total', { result: 'expired', cached: 'false' })).toBe(1);
    expect(value('tessera_http_requests_total', { route: '/v1/users/:uid', method: 'GET', status: '200' })).toBe(2);
    expect(value('tessera_http_requests_total', { route: '/v1/users/authorize', method: 'POST', status: '401' })).toBe(
      4,
    );
    expect(
      value('tessera_http_request_duration_seconds_count', {
        route: '/v1/users/authorize',
        method: 'POST',
        status: '200',
      }),
    ).toBe(5);
    expect(value('tessera_store_errors_total', { kind: 'unavailable' })).toBe(0);
    expect(value('tessera_process_cpu_seconds_total')).toBeGreaterThan(0); // prom-client's defaults

    // No label carries a name, an id, an address or a raw URL.
    for (const secretish of ['root', 'grace', `/v1/users/${graceUid}`, '127.0.0.1']) {
      expect(text.split('\n').filter((l) => !l.startsWith('#') && l.includes(secretish))).toEqual([]);
    }
  });

  it('a path the router does not know is counted under one label, not its URL', async () => {
    t = await testTessera();
    for (const url of ['/nope/1', '/nope/2', '/v1/users/9/nothing'])
      expect((await call(t, 'GET', url)).status).toBe(404);
    const { value, text } = await scrape();
    expect(value('tessera_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' })).toBe(3);
    expect(text).not.toContain('/nope');
  });

  it('the listener serves GET /metrics and the probes, nothing of the API; /readyz says starting until the process has started', async () => {
    t = await testTessera();
    let started = false;
    const listener = await listenManagement(
      t.tessera.metrics,
      { host: '127.0.0.1', port: 0 },
      { started: () => started, readiness: t.tessera.readiness, scrapes: scrapeGate(t.tessera) },
    );
    closeListener = () => listener.close();
    const at = (path: string, init?: RequestInit) => fetch(listener.url.replace('/metrics', path), init);
    const other = await at('/v1/users');
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual({
      error_code: 'not_found',
      message: 'This listener serves GET /metrics, /healthz and /readyz',
    });
    const posted = await at('/metrics', { method: 'POST' });
    expect([posted.status, posted.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    expect(await (await at('/healthz')).json()).toEqual({ status: 'ok' });
    const starting = await at('/readyz');
    expect([starting.status, starting.headers.get('retry-after'), (await starting.json()).error_code]).toEqual([
      503,
      '1',
      'starting',
    ]);
    started = true;
    // The main thread tells the listener's thread its readiness twice a second.
    let ready = await at('/readyz');
    for (let i = 0; i < 40 && ready.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      ready = await at('/readyz');
    }
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready', store: true }]);
  });
});

describe("metrics_auth (the cluster object's, 8.0): who may scrape", () => {
  /** The real listener, as server.ts starts it; `at(path, auth)` asks it. */
  async function listen() {
    const listener = await listenManagement(
      t.tessera.metrics,
      { host: '127.0.0.1', port: 0 },
      { started: () => true, readiness: t.tessera.readiness, scrapes: scrapeGate(t.tessera) },
    );
    closeListener = () => listener.close();
    return async (path: string, auth?: string) => {
      const res = await fetch(listener.url.replace('/metrics', path), {
        headers: auth === undefined ? {} : { authorization: auth },
      });
      const text = await res.text();
      return { status: res.status, challenge: res.headers.get('www-authenticate'), text };
    };
  }
  const codeOf = (text: string) => (JSON.parse(text) as { error_code: string }).error_code;
  const setCluster = async (auth: string, body: object, query = '') => {
    const res = await call(t, 'PUT', `/v1/cluster${query}`, { auth, body });
    expect(res.status).toBe(200);
    return res.body as { metrics_auth: boolean };
  };

  it('is false by default: the scrape is open, as before the setting', async () => {
    t = await testTessera();
    await t.addUser('root', 'root-password', 'admin');
    const root = await login(t, 'root', 'root-password');
    expect((await call(t, 'GET', '/v1/cluster', { auth: root })).body.metrics_auth).toBe(false);
    const at = await listen();
    const open = await at('/metrics');
    expect([open.status, open.challenge]).toEqual([200, null]);
    expect(open.text).toMatch(/^tessera_logins_total/m);
    // Credentials of anyone at all change nothing while it is off.
    expect((await at('/metrics', t.basic('root', 'wrong-password'))).status).toBe(200);
  });

  it('when true: 401 with a Basic challenge without or with wrong credentials, 403 without view_all_metrics, 200 for who holds it (Basic or a token); probes stay open', async () => {
    t = await testTessera({ authRateLimit: 0 });
    await t.addUser('root', 'root-password', 'admin');
    for (const level of ['cluster_member', 'cluster_viewer', 'user_manager', 'db_member', 'db_viewer', 'none'])
      await t.addUser(`u-${level}`, `password-of-${level}`, level);
    const root = await login(t, 'root', 'root-password');
    const at = await listen();
    expect(await setCluster(root, { metrics_auth: true })).toMatchObject({ metrics_auth: true });
    const refusedAudits: { event: string; ip: string }[] = [];
    t.tessera.events.on('audited', (r: { event: string; outcome: string; username?: string }, ctx?: { ip: string }) => {
      if (r.outcome === 'failure' && r.username === 'root') refusedAudits.push({ event: r.event, ip: ctx?.ip ?? '' });
    });

    const none = await at('/metrics');
    expect([none.status, codeOf(none.text)]).toEqual([401, 'missing_credentials']);
    expect(none.challenge).toMatch(/^Basic realm=/);
    const wrong = await at('/metrics', t.basic('root', 'wrong-password'));
    expect([wrong.status, codeOf(wrong.text)]).toEqual([401, 'invalid_credentials']);
    expect(wrong.challenge).toMatch(/^Basic realm=/);
    const nobody = await at('/metrics', t.basic('ghost', 'ghost-password'));
    expect([nobody.status, codeOf(nobody.text)]).toEqual([401, 'invalid_credentials']);
    const badToken = await at('/metrics', 'Bearer not.a.token');
    expect([badToken.status, codeOf(badToken.text)]).toEqual([401, 'invalid_token']);
    expect(wrong.text).not.toMatch(/tessera_/);

    // The product's view_all_metrics: admin, cluster_member, cluster_viewer; not the db_* levels nor user_manager.
    for (const level of ['user_manager', 'db_member', 'db_viewer', 'none']) {
      const refused = await at('/metrics', t.basic(`u-${level}`, `password-of-${level}`));
      expect([level, refused.status, codeOf(refused.text)]).toEqual([level, 403, 'forbidden']);
      expect(refused.text).not.toMatch(/tessera_/);
    }
    for (const level of ['cluster_member', 'cluster_viewer']) {
      const allowed = await at('/metrics', t.basic(`u-${level}`, `password-of-${level}`));
      expect([level, allowed.status]).toEqual([level, 200]);
    }
    const admin = await at('/metrics', t.basic('root', 'root-password'));
    expect(admin.status).toBe(200);
    expect(admin.text).toMatch(/^tessera_logins_total/m);
    expect((await at('/metrics', root)).status).toBe(200); // a token too
    const viewerToken = await login(t, 'u-db_viewer', 'password-of-db_viewer');
    expect((await at('/metrics', viewerToken)).status).toBe(403);

    // The probes need nothing, whatever is sent.
    expect((await at('/healthz')).status).toBe(200);
    expect((await at('/healthz', t.basic('root', 'wrong-password'))).status).toBe(200);
    let ready = await at('/readyz');
    for (let i = 0; i < 40 && ready.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      ready = await at('/readyz');
    }
    expect(ready.status).toBe(200);

    // A wrong password here is a guess like any other: audited with the scraper's address.
    expect(refusedAudits).toEqual([{ event: 'authenticate', ip: '127.0.0.1' }]);
  });

  it("takes Basic whatever control_plane_basic_authentication says (the product's setting is of the REST API); ?dry_run changes nothing; off again opens it", async () => {
    t = await testTessera();
    await t.addUser('root', 'root-password', 'admin');
    const root = await login(t, 'root', 'root-password');
    const at = await listen();
    await setCluster(root, { metrics_auth: true, control_plane_basic_authentication: false });
    expect((await call(t, 'GET', '/v1/cluster', { auth: t.basic('root', 'root-password') })).status).toBe(401);
    expect((await at('/metrics', t.basic('root', 'root-password'))).status).toBe(200);
    expect((await at('/metrics')).status).toBe(401);

    expect(await setCluster(root, { metrics_auth: false }, '?dry_run')).toMatchObject({ metrics_auth: false });
    expect((await call(t, 'GET', '/v1/cluster', { auth: root })).body.metrics_auth).toBe(true);
    expect((await at('/metrics')).status).toBe(401);

    await setCluster(root, { metrics_auth: false });
    expect((await at('/metrics')).status).toBe(200);
  });
});

describe("the management listener's own thread", () => {
  it('answers probes while the main thread is stalled, and says it is stalled past the liveness time', async () => {
    t = await testTessera();
    const listener = await listenManagement(
      t.tessera.metrics,
      { host: '127.0.0.1', port: 0 },
      { started: () => true, readiness: t.tessera.readiness, scrapes: scrapeGate(t.tessera) },
      1000,
    );
    closeListener = () => listener.close();
    const probe = (path: string) =>
      execFileSync('curl', ['-s', '-m', '2', '-w', ' %{http_code}', listener.url.replace('/metrics', path)], {
        encoding: 'utf8',
      });
    for (let i = 0; i < 40 && !probe('/readyz').endsWith(' 200'); i++) await new Promise((r) => setTimeout(r, 50));
    // curl runs while this (the main) thread is blocked in execFileSync: the answers come from the listener's thread.
    expect(probe('/healthz')).toBe('{"status":"ok"} 200');
    const stalledUntil = Date.now() + 1500;
    while (Date.now() < stalledUntil); // a main thread that no longer turns
    expect(probe('/healthz')).toMatch(/"error_code":"unresponsive".* 503$/);
    await new Promise((r) => setTimeout(r, 600)); // it turns again, and says so
    expect(probe('/healthz')).toBe('{"status":"ok"} 200');
  });
});

describe('the Grafana dashboard (ops/grafana/tessera-dashboard.json)', () => {
  it('asks only for metrics that Tessera exports', async () => {
    const { readFileSync } = await import('node:fs');
    const dashboard = JSON.parse(
      readFileSync(new URL('../../ops/grafana/tessera-dashboard.json', import.meta.url), 'utf8'),
    );
    const exprs: string[] = dashboard.panels.flatMap((p: { targets: { expr: string }[] }) =>
      p.targets.map((target) => target.expr),
    );
    const asked = new Set(
      exprs.flatMap((e) => [...e.matchAll(/\b(tessera_\w+?)(?:_bucket|_count|_sum)?\{/g)].map((m) => m[1]!)),
    );
    t = await testTessera();
    await t.tessera.metrics.exposition(); // a scrape: the process metrics are collected from the first on
    const exported = new Set((await t.tessera.metrics.registry.getMetricsAsJSON()).map((m) => m.name));
    expect(asked.size).toBeGreaterThan(10);
    for (const name of asked) expect(exported.has(name), name).toBe(true);
  });
});

describe('the HTTP request histogram', () => {
  it('is cumulative by bucket, with +Inf, sum and count, in the Prometheus text format', async () => {
    const { Metrics } = await import('../../src/metrics/metrics.js');
    const metrics = new Metrics(new EventHub());
    for (const seconds of [0.0005, 0.004, 0.004, 2, 7]) metrics.httpRequest('/v1/users/:uid', 'GET', 200, seconds);
    metrics.httpRequest('/v1/users/:uid', 'GET', 404, 0.002);
    const text = await metrics.registry.metrics();
    const line = (le: string) =>
      new RegExp(
        `^tessera_http_request_duration_seconds_bucket\\{route="/v1/users/:uid",method="GET",status="200",le="${le.replace('+', '\\+')}"\\} (\\S+)$`,
        'm',
      ).exec(text)?.[1];
    expect(['0.001', '0.005', '1', '3', '+Inf'].map(line)).toEqual(['1', '3', '3', '4', '5']);
    expect(text).toMatch(
      /^tessera_http_request_duration_seconds_sum\{route="\/v1\/users\/:uid",method="GET",status="200"\} 9\.0085$/m,
    );
    expect(text).toMatch(/^tessera_http_requests_total\{route="\/v1\/users\/:uid",method="GET",status="404"\} 1$/m);
    expect(text).toMatch(/^# TYPE tessera_http_request_duration_seconds histogram$/m);
  });
});
