import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login } from '../helpers/http.js';
import { type Collector, startCollector } from '../helpers/rsyslog.js';
import { freshPostgres, freshRedisPrefix, REDIS_URL } from '../helpers/services.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

const PASSWORD = 'Admin-password-1';

async function until(check: () => Promise<boolean> | boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('two nodes on PostgreSQL and Redis, one sink', () => {
  let pg: { url: string; drop(): Promise<void> };
  let dir: string;
  let collector: Collector;
  let a: TestTessera;
  let b: TestTessera;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tessera-siem-nodes-'));
    [pg, collector] = await Promise.all([freshPostgres(), startCollector({ dir })]);
    const shared = { databaseUrl: pg.url, redisUrl: REDIS_URL, redisKeyPrefix: freshRedisPrefix(), authRateLimit: 0 };
    a = await testTessera(shared);
    b = await testTessera(shared);
    await a.addUser('admin', PASSWORD, 'admin');
    await a.tessera.siemRecorder.flush(); // before any sink: the admin's creation goes to none
  }, 60_000);
  afterAll(async () => {
    await a?.close().catch(() => {});
    await b?.close().catch(() => {});
    await pg?.drop();
    await collector?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('delivers each event of either node once, by one node at a time', { timeout: 60_000 }, async () => {
    const adminA = await login(a, 'admin', PASSWORD);
    const adminB = await login(b, 'admin', PASSWORD);
    const put = await call(a, 'PUT', '/v1/cluster/auditing/control_plane', {
      auth: adminA,
      body: { sinks: [{ name: 'siem', type: 'syslog', format: 'json', address: '127.0.0.1', port: collector.port }] },
    });
    expect(put.status).toBe(200);
    b.advance(2); // node b reads the settings within a second (of its clock, which the test moves)

    // Changes and sign-ins on both nodes at once.
    const made: string[] = [];
    await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const [node, auth] = i % 2 === 0 ? [a, adminA] : [b, adminB];
        const name = `user${i}`;
        const res = await call(node, 'POST', '/v1/users', {
          auth,
          body: { name, email: `${name}@example.com`, password: 'User-password-1', role: 'db_viewer' },
        });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        made.push(name);
        expect(
          (await call(node, 'POST', '/v1/users/authorize', { body: { username: name, password: 'User-password-1' } }))
            .status,
        ).toBe(200);
      }),
    );

    const received = () => collector.messages().map((m) => JSON.parse(m.slice(m.indexOf(' - {') + 3)));
    const count = (type: string) => received().filter((e) => e.type === type && e.outcome === 'success').length;
    await until(() => count('user_created') >= 40 && count('authorize') >= 40);
    await until(
      async () =>
        (await call(a, 'GET', '/v1/cluster/auditing/control_plane', { auth: adminA })).body.sinks[0].status.backlog ===
        0,
    );
    const events = received();
    const ids = events.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length); // none twice
    expect(
      events
        .filter((e) => e.type === 'user_created')
        .map((e) => e.username)
        .sort(),
    ).toEqual(made.sort());
    // Both nodes recorded events; the sink's record is the same whichever node answers.
    expect(new Set(events.map((e) => e.node)).size).toBe(2);
    const [fromA, fromB] = await Promise.all([
      call(a, 'GET', '/v1/cluster/auditing/control_plane', { auth: adminA }),
      call(b, 'GET', '/v1/cluster/auditing/control_plane', { auth: adminB }),
    ]);
    expect(fromA.body.sinks[0].status.delivered).toBe(fromB.body.sinks[0].status.delivered);
    expect(fromA.body.sinks[0].status.delivered).toBe(events.length);
  });

  it('hands the sink to the other node when its holder closes', async () => {
    const adminA = await login(a, 'admin', PASSWORD);
    const status = async (t: TestTessera, auth: string) =>
      (await call(t, 'GET', '/v1/cluster/auditing/control_plane', { auth })).body.sinks[0].status;
    const holder = (await status(a, adminA)).node;
    const [gone, left] = holder === a.tessera.node ? [a, b] : [b, a];
    await gone.close();
    const before = collector.messages().length;
    const adminB = await login(left, 'admin', PASSWORD);
    expect(
      (
        await call(left, 'POST', '/v1/users', {
          auth: adminB,
          body: { name: 'late', password: 'User-password-1', role: 'db_viewer' },
        })
      ).status,
    ).toBe(200);
    left.advance(11); // the closed holder's lease lapses (10 s)
    await until(
      () =>
        collector
          .messages()
          .slice(before)
          .some((m) => m.includes('"username":"late"')),
      20_000,
    );
    expect((await status(left, adminB)).node).toBe(left.tessera.node);
  });
});
