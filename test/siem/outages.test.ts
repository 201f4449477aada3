import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, login } from '../helpers/http.js';
import { metricValue } from '../helpers/metrics.js';
import { type Collector, startCollector } from '../helpers/rsyslog.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

const ADMIN_PASSWORD = 'Admin-password-1';
const CONTROL_PLANE = '/v1/cluster/auditing/control_plane';

/** The events a collector received, each once (a receiver drops repeats by id, as delivery is at least once). */
function eventsOf(messages: string[]): { all: any[]; unique: Map<string, any> } {
  const all = messages.map((m) => JSON.parse(m.slice(m.indexOf(' - {') + 3)));
  return { all, unique: new Map(all.map((e) => [e.id, e])) };
}

async function until(check: () => Promise<boolean> | boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a SIEM sink that goes away and comes back (a real rsyslog stopped and started)', () => {
  let dir: string;
  let collector: Collector;
  let t: TestTessera;
  let admin: string;
  let users = 0;

  const sinkState = async () => {
    const got = await call(t, 'GET', CONTROL_PLANE, { auth: admin });
    if (got.status !== 200) throw new Error(`GET ${CONTROL_PLANE}: ${got.status} ${JSON.stringify(got.body)}`);
    return got.body.sinks[0].status as Record<string, any>;
  };
  const makeUser = () =>
    call(t, 'POST', '/v1/users', {
      auth: admin,
      body: {
        name: `user${++users}`,
        email: `user${users}@example.com`,
        password: 'User-password-1',
        role: 'db_viewer',
      },
    });
  /** Another user's: a user's oldest sessions end past its cap of live ones, and the admin's token must live. */
  const signIn = () => call(t, 'POST', '/v1/users/authorize', { body: { username: 'ops', password: ADMIN_PASSWORD } });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tessera-siem-outage-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  beforeEach(async () => {
    collector = await startCollector({ dir });
    t = await testTessera({ authRateLimit: 0 });
    await t.addUser('admin', ADMIN_PASSWORD, 'admin');
    await t.addUser('ops', ADMIN_PASSWORD, 'admin');
    admin = await login(t, 'admin', ADMIN_PASSWORD);
    // What happened before any sink (these users' creation, the login) leaves its batch now: a sink
    // configured within the batch's 250 ms would otherwise receive it too.
    await t.tessera.siemRecorder.flush();
  }, 60_000);
  afterEach(async () => {
    await t?.close();
    await collector?.close();
  });

  const configure = (extra: Record<string, unknown> = {}) =>
    call(t, 'PUT', CONTROL_PLANE, {
      auth: admin,
      body: {
        ...extra,
        sinks: [{ name: 'siem', type: 'syslog', format: 'json', address: '127.0.0.1', port: collector.port }],
      },
    });

  it('keeps what it could not deliver, says the sink fails, and delivers every event once when it returns', async () => {
    expect((await configure()).status).toBe(200);
    expect((await makeUser()).status).toBe(200);
    await collector.waitFor(2);
    await collector.stop();

    for (let i = 0; i < 20; i++) expect((await makeUser()).status).toBe(200);
    await until(async () => (await sinkState()).state === 'failing');
    const failing = await sinkState();
    expect(failing.backlog).toBeGreaterThanOrEqual(20);
    // Refused, or reset when a batch was on its way as the collector stopped (the full run's timing).
    expect(failing.last_error).toMatch(/ECONNREFUSED|ECONNRESET/);
    expect(await metricValue(t, 'tessera_siem_failures_total', { sink: 'siem' })).toBeGreaterThan(0);
    expect(await metricValue(t, 'tessera_siem_backlog', { sink: 'siem' })).toBeGreaterThanOrEqual(20);
    const logged = await call(t, 'GET', '/v1/logs?type=siem_sink_failed', { auth: admin });
    expect(logged.body).toEqual([expect.objectContaining({ type: 'siem_sink_failed', target: 'siem_sink siem' })]);

    // A minute later (the node's clock), the collector is back: the backoff's next try finds it.
    await collector.start();
    t.advance(60);
    await until(async () => (await sinkState()).backlog === 0);
    const { unique } = eventsOf(collector.messages());
    const made = [...unique.values()].filter((e) => e.type === 'user_created').map((e) => e.username);
    expect(made.sort()).toEqual(Array.from({ length: 21 }, (_, i) => `user${i + 1}`).sort());
    expect([...unique.values()].map((e) => e.type)).toEqual(expect.arrayContaining(['siem_sink_failed']));
    await until(() =>
      [...eventsOf(collector.messages()).unique.values()].some((e) => e.type === 'siem_sink_recovered'),
    );
    expect((await sinkState()).state).toBe('delivering');
  });

  it('best_effort: past max_backlog drops the oldest undelivered events and counts them', async () => {
    expect((await configure({ max_backlog: 100 })).status).toBe(200);
    await collector.stop();
    for (let i = 0; i < 150; i++) expect((await signIn()).status).toBe(200);
    // Once the last sign-ins were written and trimmed: the newest 100 kept, the rest dropped and counted.
    await until(async () => {
      const { backlog, dropped } = await sinkState();
      return backlog <= 100 && dropped + backlog >= 150;
    });
    const state = await sinkState();
    expect(state.backlog).toBe(100);
    expect(await metricValue(t, 'tessera_siem_dropped_total', { sink: 'siem' })).toBe(state.dropped);
  });

  it('blocking: past max_backlog refuses changes with 503 until the sink catches up; sign-ins go on', async () => {
    expect((await configure({ mode: 'blocking', max_backlog: 100 })).status).toBe(200);
    await collector.stop();
    // A flood of sign-ins never blocks the changes: past the bound, the oldest sign-ins are dropped and counted.
    for (let i = 0; i < 150; i++) expect((await signIn()).status).toBe(200);
    await until(async () => (await sinkState()).dropped >= 50);
    expect((await makeUser()).status).toBe(200);
    // Changes fill the bound: the next one waits.
    await until(async () => (await makeUser()).status === 503, 30_000);
    const state = await sinkState();
    expect(state.backlog).toBeGreaterThanOrEqual(100);
    const refused = await makeUser();
    expect(refused.status).toBe(503);
    expect(refused.body.error_code).toBe('audit_backlog_full');
    expect(refused.body.message).toContain('"siem"');
    expect(refused.headers['retry-after']).toBeDefined();
    // What was refused was not made.
    expect(await t.tessera.users.findByUsername(`user${users}`)).toBeUndefined();
    // Sign-ins, reads and ending access go on.
    const token = (await signIn()).body.access_token as string;
    expect((await call(t, 'GET', '/v1/users', { auth: `JWT ${token}` })).status).toBe(200);
    expect((await call(t, 'POST', '/v1/users/logout', { auth: `JWT ${token}` })).status).toBe(200);
    // And the way out: the auditing settings themselves are never refused (another sink, best_effort).
    expect((await call(t, 'PUT', CONTROL_PLANE, { auth: admin, body: { mode: 'blocking' } })).status).toBe(200);

    await collector.start();
    t.advance(60);
    await until(async () => (await sinkState()).backlog === 0);
    await until(async () => (await makeUser()).status === 200);
    expect(await t.tessera.users.findByUsername(`user${users}`)).toBeDefined();
    // No change that was made lost its event: every user made is in the collector.
    const made = (await call(t, 'GET', '/v1/users', { auth: admin })).body
      .map((u: any) => u.name)
      .filter((n: string) => /^user\d+$/.test(n));
    await until(() => {
      const delivered = new Set(
        [...eventsOf(collector.messages()).unique.values()]
          .filter((e) => e.type === 'user_created')
          .map((e) => e.username),
      );
      return made.every((n: string) => delivered.has(n));
    });
  });

  it('never counts as delivered what a server that is no collector took (a banner, then a close)', async () => {
    const impostor = net.createServer((socket) => socket.end('220 mail.example.com ESMTP\r\n'));
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
    try {
      const port = (impostor.address() as net.AddressInfo).port;
      const put = await call(t, 'PUT', CONTROL_PLANE, {
        auth: admin,
        body: { sinks: [{ name: 'siem', type: 'syslog', format: 'json', address: '127.0.0.1', port }] },
      });
      expect(put.status).toBe(200);
      expect((await makeUser()).status).toBe(200);
      await until(async () => (await sinkState()).state === 'failing');
      const state = await sinkState();
      expect(state.delivered).toBe(0);
      expect(state.backlog).toBeGreaterThanOrEqual(2);
      expect(state.last_error).toContain('not a syslog collector');
    } finally {
      impostor.close();
    }
  });
});
