import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventLogWriter } from '../../src/event-log/event-log-writer.js';
import { KyselyEventLog } from '../../src/event-log/kysely-event-log.js';
import { EventHub } from '../../src/events.js';
import { type Db, openDatabase } from '../../src/store/database.js';
import { call, login } from '../helpers/http.js';
import { freshPostgres } from '../helpers/services.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

describe('GET /v1/logs: the event log as the product serves it', () => {
  let t: TestTessera;
  let admin: string;
  let start: string;

  beforeAll(async () => {
    t = await testTessera();
    await t.addUser('root', 'root-password', 'admin');
    await t.addUser('viewer', 'viewer-password-1', 'cluster_viewer');
    await t.addUser('reader', 'reader-password-1', 'db_viewer');
    admin = await login(t, 'root', 'root-password');
    start = '2020-01-01T00:00:00Z'; // the test's clock stands still where it started: every event of this test is after this
  });
  afterAll(() => t.close());

  it('tells who created, changed and deleted a user and when, as the product names them; a refused login as a WARNING; never a password', async () => {
    const made = await call(t, 'POST', '/v1/users', {
      auth: admin,
      body: { name: 'ops', password: 'Ops-password-secret-1', role: 'db_viewer' },
    });
    await call(t, 'PUT', `/v1/users/${made.body.uid}`, { auth: admin, body: { role: 'db_member' } });
    await call(t, 'POST', '/v1/users/authorize', { body: { username: 'ops', password: 'wrong-password-secret' } });
    await call(t, 'DELETE', `/v1/users/${made.body.uid}`, { auth: admin });
    const res = await t.app.inject({
      method: 'GET',
      url: `/v1/logs?stime=${start}&uid=${made.body.uid}`,
      headers: { authorization: admin },
    });
    expect(res.statusCode).toBe(200);
    const events = res.json();
    expect(events.map((e: { type: string }) => e.type)).toEqual(['user_created', 'user_updated', 'user_deleted']);
    expect(events[0]).toMatchObject({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      severity: 'INFO',
      actor: 'root',
      uid: made.body.uid,
      username: 'ops',
      outcome: 'success',
    });
    expect(events[1]).toMatchObject({ changes: ['role'] });
    const refused = (
      await t.app.inject({
        method: 'GET',
        url: `/v1/logs?stime=${start}&type=authorize&order=desc`,
        headers: { authorization: admin },
      })
    ).json();
    expect(refused.find((e: { username?: string }) => e.username === 'ops')).toMatchObject({
      severity: 'WARNING',
      outcome: 'failure',
      reason: 'invalid_credentials',
    });
    const everything = (
      await t.app.inject({ method: 'GET', url: '/v1/logs?limit=10000', headers: { authorization: admin } })
    ).body;
    expect(everything).not.toMatch(/secret|argon2/);
  });

  it('filters by time, type, order, limit and offset; for everyone but db_viewer', async () => {
    const all = (
      await t.app.inject({ method: 'GET', url: '/v1/logs?order=desc&limit=2', headers: { authorization: admin } })
    ).json();
    expect(all).toHaveLength(2);
    expect(all[0].type).toBe('user_deleted');
    const skipped = (
      await t.app.inject({
        method: 'GET',
        url: '/v1/logs?order=desc&limit=1&offset=1',
        headers: { authorization: admin },
      })
    ).json();
    expect(skipped[0]).toEqual(all[1]);
    expect(
      (await t.app.inject({ method: 'GET', url: '/v1/logs?type=user_created', headers: { authorization: admin } }))
        .json()
        .every((e: { type: string }) => e.type === 'user_created'),
    ).toBe(true);
    t.advance(3600);
    admin = `Basic ${Buffer.from('root:root-password').toString('base64')}`; // the token ended meanwhile
    const later = new Date(Date.now() + 1800_000).toISOString();
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: '/v1/logs?etime=2020-01-01T00:00:00Z',
          headers: { authorization: admin },
        })
      ).json(),
    ).toEqual([]);
    await login(t, 'root', 'root-password');
    const recent = (
      await t.app.inject({ method: 'GET', url: `/v1/logs?stime=${later}`, headers: { authorization: admin } })
    ).json();
    expect(recent.map((e: { type: string }) => e.type)).toEqual(['authorize']);
    const viewer = await login(t, 'viewer', 'viewer-password-1');
    expect(
      (await t.app.inject({ method: 'GET', url: '/v1/logs', headers: { authorization: viewer } })).statusCode,
    ).toBe(200);
    const reader = await login(t, 'reader', 'reader-password-1');
    expect(
      (await t.app.inject({ method: 'GET', url: '/v1/logs', headers: { authorization: reader } })).statusCode,
    ).toBe(403);
    expect(
      (await t.app.inject({ method: 'GET', url: '/v1/logs?stime=yesterday', headers: { authorization: admin } })).json()
        .error_code,
    ).toBe('invalid_request');
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: '/v1/logs?etime=2026-11-25T23:59:60Z',
          headers: { authorization: admin },
        })
      ).json().error_code,
    ).toBe('invalid_request');
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: '/v1/logs?etime=9999-12-31T23:59:59Z&limit=1',
          headers: { authorization: admin },
        })
      ).json(),
    ).toHaveLength(1);
  });

  it('shows who may not list users what happened, not to or by whom (what a failed login typed may be a password)', async () => {
    await call(t, 'POST', '/v1/users/authorize', { body: { username: 'MyPassw0rd!', password: 'x' } });
    // A reason in words that may name someone (an identity provider's email) is left out too; one of Tessera's words is kept.
    t.tessera.audit.record(
      { ip: '203.0.113.7', requestId: 'r' },
      { event: 'authorize', outcome: 'failure', reason: 'no role for secret.person@corp.com (redisRoleMapping: none)' },
    );
    const viewer = `Basic ${Buffer.from('viewer:viewer-password-1').toString('base64')}`;
    const seen = (
      await t.app.inject({
        method: 'GET',
        url: '/v1/logs?type=authorize&order=desc&limit=5',
        headers: { authorization: viewer },
      })
    ).json();
    expect(seen.length).toBeGreaterThan(0);
    expect(JSON.stringify(seen)).not.toMatch(/MyPassw0rd|root|viewer|secret\.person|"uid"|"ip"|"actor"/);
    // Nor may it ask when a given user acted; its own events it may filter.
    const byUid = await t.app.inject({ method: 'GET', url: '/v1/logs?uid=1', headers: { authorization: viewer } });
    expect([byUid.statusCode, byUid.json().error_code]).toEqual([403, 'forbidden']);
    const viewerUid = (await t.tessera.users.findByUsername('viewer'))!.uid;
    const own = await t.app.inject({
      method: 'GET',
      url: `/v1/logs?uid=${viewerUid}`,
      headers: { authorization: viewer },
    });
    expect(own.statusCode).toBe(200);
    expect(seen[0]).toMatchObject({ type: 'authorize', severity: 'WARNING', outcome: 'failure' });
    expect(seen[0]).not.toHaveProperty('reason');
    expect(seen[1]).toMatchObject({
      type: 'authorize',
      severity: 'WARNING',
      outcome: 'failure',
      reason: 'no such account',
    });
    const full = (
      await t.app.inject({
        method: 'GET',
        url: '/v1/logs?type=authorize&order=desc&limit=5',
        headers: { authorization: admin },
      })
    ).json();
    expect(full.some((e: { username?: string }) => e.username === 'MyPassw0rd!')).toBe(true);
  });

  it("names a change of the cluster's settings as the product does (cluster_updated); a type= the log does not use is 400, naming the one it does", async () => {
    const root = t.basic('root', 'root-password');
    await call(t, 'PUT', '/v1/cluster', { auth: root, body: { password_min_length: 10 } });
    await call(t, 'PUT', '/v1/cluster/policy', { auth: root, body: { login_lockout_threshold: 6 } });
    const changed = await call(t, 'GET', '/v1/logs?type=cluster_updated', { auth: root });
    expect(changed.status).toBe(200);
    expect(changed.body.map((e: { changes: string[] }) => e.changes)).toEqual([
      ['password_min_length'],
      ['login_lockout_threshold'],
    ]);
    expect(changed.body[0]).toMatchObject({ type: 'cluster_updated', severity: 'INFO', actor: 'root' });
    // The former name (still the audit line's) and a user event's audit name are named as the log calls them.
    for (const [asked, named] of [
      ['policy_update', 'cluster_updated'],
      ['user_create', 'user_created'],
    ]) {
      const old = await call(t, 'GET', `/v1/logs?type=${asked}`, { auth: root });
      expect([old.status, old.body.error_code], asked).toEqual([400, 'invalid_request']);
      expect(old.body.message, asked).toContain(`did you mean ${named}?`);
    }
    for (const asked of ['no_such_event', 'constructor', '__proto__']) {
      const unknown = await call(t, 'GET', `/v1/logs?type=${asked}`, { auth: root });
      expect([unknown.status, unknown.body.error_code], asked).toEqual([400, 'invalid_request']);
      expect(unknown.body.message, asked).toMatch(/^no event has the type "[a-z_]+"; the types: .*cluster_updated, /);
    }
    // What the writer itself says is a type too.
    expect((await call(t, 'GET', '/v1/logs?type=events_dropped', { auth: root })).status).toBe(200);
  });

  it("reads a time without a zone as UTC whatever the server's zone, and order in any case (the docs' example: GET /v1/logs?order=desc)", async () => {
    const root = t.basic('root', 'root-password');
    t.advance(7200); // a second of its own, after every event so far
    t.tessera.audit.record({ ip: '203.0.113.8', requestId: 'zone' }, { event: 'key_rotate', outcome: 'success' });
    const at = (await call(t, 'GET', '/v1/logs?order=desc&limit=1', { auth: root })).body[0].time as string;
    const zoneless = (ms: number) => new Date(ms).toISOString().slice(0, 19); // 2026-11-27T10:00:00
    const zone = process.env.TZ;
    process.env.TZ = 'America/New_York'; // a server's local time is not UTC
    try {
      const from = await call(t, 'GET', `/v1/logs?stime=${zoneless(Date.parse(at))}`, { auth: root });
      expect([from.status, from.body]).toEqual([200, [expect.objectContaining({ type: 'key_rotate', time: at })]]);
      const until = await call(t, 'GET', `/v1/logs?order=desc&limit=1&etime=${zoneless(Date.parse(at) - 1000)}`, {
        auth: root,
      });
      expect(until.status).toBe(200);
      expect(until.body[0].time < at).toBe(true);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
    // The docs' example request, and its order in any case.
    const desc = await call(t, 'GET', '/v1/logs?order=desc', { auth: root });
    expect(desc.status).toBe(200);
    expect(desc.body[0]).toMatchObject({ time: at, type: 'key_rotate', severity: 'INFO' });
    const times = desc.body.map((e: { time: string }) => e.time);
    expect(times).toEqual([...times].sort().reverse());
    for (const order of ['DESC', 'Desc'])
      expect((await call(t, 'GET', `/v1/logs?order=${order}`, { auth: root })).body).toEqual(desc.body);
    expect((await call(t, 'GET', '/v1/logs?order=ASC&limit=1', { auth: root })).body[0].time < at).toBe(true);
    const wrong = await call(t, 'GET', '/v1/logs?order=descending', { auth: root });
    expect([wrong.status, wrong.body.error_code]).toEqual([400, 'invalid_request']);
    // Still no time: a day that is not, an hour past 23, a zone-less time with garbage after it.
    for (const bad of ['2026-02-30T00:00:00', '2026-11-27T25:00:00', '2026-11-27T10:00:00junk'])
      expect((await call(t, 'GET', `/v1/logs?stime=${bad}`, { auth: root })).body.error_code, bad).toBe(
        'invalid_request',
      );
  });
});

describe.each(['sqlite', 'postgres'] as const)('the event log store on %s: bounded', (dialect) => {
  let db: Db;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-events-'));
    const pg = dialect === 'postgres' ? await freshPostgres() : undefined;
    db = await openDatabase({ dataDir, ...(pg && { databaseUrl: pg.url }) });
    cleanup = async () => {
      await db.destroy();
      await pg?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    };
  });
  afterAll(() => cleanup());

  it('bounds what a request typed, and folds a flood of the same refusal into one row with a count', async () => {
    const log = new KyselyEventLog(db);
    const writer = new EventLogWriter(log, () => Date.parse('2026-10-01T00:00:00Z'), {
      retentionDays: 3650,
      maxEvents: 1000,
      flushMs: 3_600_000,
      prune: false,
    });
    for (let i = 0; i < 500; i++)
      writer.add(
        {
          event: 'authorize',
          outcome: 'failure',
          username: `${'x'.repeat(20_000)}\u001b[2J\u202e`,
          reason: 'too_many_requests',
        },
        { ip: '203.0.113.9', requestId: `r${i}` },
      );
    writer.add({ event: 'user_create', outcome: 'success', uid: 9, username: 'kept' });
    await writer.close();
    const rows = await log.query({
      order: 'asc',
      limit: 10,
      offset: 0,
      stime: '2026-09-30T00:00:00Z',
      etime: '2026-10-02T00:00:00Z',
    });
    expect(rows.map((r) => r.type)).toEqual(['authorize', 'user_created']);
    expect(rows[0]).toMatchObject({ count: 500 });
    expect(String(rows[0]!.username).length).toBeLessThanOrEqual(257);
    expect(String(rows[0]!.username)).not.toMatch(/[\u0000-\u001f\u202e]/);
  });

  it('counts the events a failed write loses, and writes the next ones when the store answers again', async () => {
    const log = new KyselyEventLog(db);
    let down = true;
    const flaky = {
      ...log,
      query: log.query.bind(log),
      prune: log.prune.bind(log),
      append: (rows: Parameters<typeof log.append>[0]) =>
        down ? Promise.reject(new Error('store away')) : log.append(rows),
    };
    const hub = new EventHub();
    const lost: [string, number][] = [];
    hub.on('eventsLost', (reason, count) => lost.push([reason, count]));
    const errors: unknown[] = [];
    const at = Date.parse('2026-10-05T00:00:00Z');
    const writer = new EventLogWriter(
      flaky,
      () => at,
      { retentionDays: 3650, maxEvents: 1000, flushMs: 3_600_000, prune: false },
      (err) => errors.push(err),
      hub,
    );
    for (let i = 0; i < 3; i++)
      writer.add({ event: 'user_create', outcome: 'success', uid: 100 + i, username: `lost-${i}` });
    await writer.flush();
    expect([lost, errors.length]).toEqual([[['write_failed', 3]], 1]);
    down = false;
    writer.add({ event: 'user_create', outcome: 'success', uid: 200, username: 'kept-after' });
    await writer.close();
    const rows = await log.query({
      order: 'asc',
      limit: 10,
      offset: 0,
      stime: '2026-10-04T00:00:00Z',
      etime: '2026-10-06T00:00:00Z',
    });
    expect(rows.map((r) => r.username)).toEqual(['kept-after']);
  });

  it('keeps the newest events within the retention and the count; a flood past the queue is counted, not kept, and said once', async () => {
    const log = new KyselyEventLog(db);
    let now = Date.parse('2026-11-01T00:00:00Z');
    const hub = new EventHub();
    const lost: [string, number][] = [];
    hub.on('eventsLost', (reason, count) => lost.push([reason, count]));
    const writer = new EventLogWriter(
      log,
      () => now,
      { retentionDays: 1, maxEvents: 1000, flushMs: 3_600_000, prune: true },
      undefined,
      hub,
    );
    for (let i = 0; i < 25_000; i++)
      writer.add({
        event: i % 2 ? 'authorize' : 'user_update',
        outcome: i % 2 ? 'failure' : 'success',
        username: `guess-${i}`,
        reason: 'invalid_credentials',
      });
    await writer.flush();
    const newest = await log.query({ order: 'desc', limit: 2, offset: 0 });
    expect(newest[0]).toMatchObject({ type: 'events_dropped', severity: 'WARNING', count: 5000 });
    expect(lost).toEqual([['queue_full', 5000]]); // and counted for the metrics
    expect(newest[1]).toMatchObject({ type: 'authorize', username: 'guess-19999' });
    const kept = await log.query({ order: 'asc', limit: 10_000, offset: 0 });
    expect(kept.length).toBeLessThanOrEqual(1000); // pruned to the newest 1000…
    expect(kept.filter((e) => e.severity === 'WARNING').length).toBeLessThanOrEqual(500); // …of which warnings half at most
    expect(kept.filter((e) => e.severity === 'INFO').length).toBeGreaterThan(450); // changes are not pushed out by refusals
    now += 2 * 86_400_000;
    writer.add({ event: 'logout', outcome: 'success', uid: 1 });
    await writer.close();
    expect((await log.query({ order: 'asc', limit: 10_000, offset: 0 })).map((e) => e.type)).toEqual(['logout']); // older than a day: gone
  });
});
