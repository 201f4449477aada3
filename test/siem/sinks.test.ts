import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureOf } from '../../src/siem/transports/webhook-transport.js';
import { call, login } from '../helpers/http.js';
import { type Collector, startCollector } from '../helpers/rsyslog.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';
import { type Receiver, startWebhookReceiver } from '../helpers/webhook-receiver.js';

const SECRET = 'webhook-secret-0123456789';
const PASSWORDS = { admin: 'Admin-password-1', alice: 'Alice-password-1', bob: 'Bob-password-1' };

/** The JSON a syslog message carries after its RFC 5424 header (no structured data: "-"). */
function bodyOf(message: string): any {
  const m = /^<(\d+)>1 (\S+) (\S+) tessera (\S+) (\S+) - (.*)$/s.exec(message);
  if (!m) throw new Error(`not an RFC 5424 message of Tessera's: ${message}`);
  return { pri: Number(m[1]), msgid: m[5], ...JSON.parse(m[6]!) };
}

async function until(check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('SIEM sinks: a real rsyslog (TCP and TLS), a webhook, a file', () => {
  let dir: string;
  let tcp: Collector;
  let tls: Collector;
  let hook: Receiver;
  let t: TestTessera;
  let admin: string;
  const file = () => path.join(dir, 'events.jsonl');

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tessera-siem-'));
    [tcp, tls, hook] = await Promise.all([
      startCollector({ dir }),
      startCollector({ dir, tls: true }),
      startWebhookReceiver(dir),
    ]);
    t = await testTessera({ authRateLimit: 0, siemFileDir: dir });
    await t.addUser('admin', PASSWORDS.admin, 'admin');
    admin = await login(t, 'admin', PASSWORDS.admin);
    await t.tessera.siemRecorder.flush(); // before any sink: the admin's creation and login go to none
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await Promise.all([tcp?.close(), tls?.close(), hook?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  const sinks = () => [
    { name: 'tcp-json', type: 'syslog', format: 'json', address: '127.0.0.1', port: tcp.port },
    {
      name: 'tls-ocsf',
      type: 'syslog',
      format: 'ocsf',
      address: '127.0.0.1',
      port: tls.port,
      protocol: 'TLS',
      ca_cert: tls.caPem,
    },
    { name: 'hook', type: 'webhook', format: 'json', url: hook.url, secret: SECRET, ca_cert: hook.caPem },
    { name: 'file', type: 'file', format: 'ocsf', path: file() },
  ];

  it('delivers sign-ins, refusals and changes to every sink, in both formats', async () => {
    const put = await call(t, 'PUT', '/v1/cluster/auditing/control_plane', { auth: admin, body: { sinks: sinks() } });
    expect(put.status).toBe(200);
    expect(put.body.sinks.map((s: any) => s.name)).toEqual(['tcp-json', 'tls-ocsf', 'hook', 'file']);
    expect(JSON.stringify(put.body)).not.toContain(SECRET);

    const created = await call(t, 'POST', '/v1/users', {
      auth: admin,
      body: { name: 'alice', email: 'alice@example.com', password: PASSWORDS.alice, role: 'db_viewer' },
    });
    expect(created.status).toBe(200);
    expect(
      (await call(t, 'POST', '/v1/users/authorize', { body: { username: 'alice', password: PASSWORDS.alice } })).status,
    ).toBe(200);
    expect(
      (await call(t, 'POST', '/v1/users/authorize', { body: { username: 'alice', password: 'wrong-Password-9' } }))
        .status,
    ).toBe(401);

    // The PUT's own event, the user made, a login, a refusal: four at least on each sink.
    const [plain, secured] = await Promise.all([tcp.waitFor(4, 15_000), tls.waitFor(4, 15_000)]);
    await hook.waitFor(() => hook.requests.flatMap((r) => JSON.parse(r.body)).length >= 4, 15_000);

    const json = plain.map(bodyOf);
    expect(json.map((e) => e.type)).toEqual(expect.arrayContaining(['siem_update', 'user_created', 'authorize']));
    const made = json.find((e) => e.type === 'user_created');
    expect(made).toMatchObject({
      outcome: 'success',
      actor: 'admin',
      username: 'alice',
      severity: 'INFO',
      msgid: 'user_created',
      pri: 86,
    });
    expect(made.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(made.node).toEqual(expect.any(String));
    const refused = json.find((e) => e.type === 'authorize' && e.outcome === 'failure');
    expect(refused).toMatchObject({ severity: 'WARNING', pri: 84, username: 'alice', reason: expect.any(String) });

    const ocsf = secured.map(bodyOf);
    const logon = ocsf.find((e) => e.class_uid === 3002 && e.status_id === 1);
    expect(logon).toMatchObject({
      activity_id: 1,
      type_uid: 300201,
      user: { name: 'alice' },
      metadata: { product: { name: 'Tessera' } },
    });
    expect(ocsf.find((e) => e.class_uid === 3002 && e.status_id === 2)).toMatchObject({
      activity_id: 1,
      severity_id: expect.any(Number),
    });
    expect(ocsf.find((e) => e.class_uid === 3001 && e.activity_id === 1)).toMatchObject({
      type_uid: 300101,
      actor: { user: { name: 'admin' } },
      user: { name: 'alice' },
    });
    // The same event has the same id in every sink.
    expect(ocsf.map((e) => e.metadata.uid).sort()).toEqual(json.map((e) => e.id).sort());

    // The webhook: each batch signed over its time and body with the operator's secret.
    for (const r of hook.requests) {
      const [, t0, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(r.headers['tessera-signature']))!;
      expect(v1).toBe(signatureOf(SECRET, Number(t0), r.body));
    }
    const hooked = hook.requests.flatMap((r) => JSON.parse(r.body));
    expect(hooked.map((e: any) => e.id).sort()).toEqual(json.map((e) => e.id).sort());

    const lines = () =>
      readFileSync(file(), 'utf8')
        .split('\n')
        .slice(0, -1) // whole lines only: a batch may be being written
        .map((l) => JSON.parse(l));
    await until(() => lines().length >= json.length);
    expect(
      lines()
        .map((e) => e.metadata.uid)
        .sort(),
    ).toEqual(json.map((e) => e.id).sort());
  });

  it('shows each sink and how it goes, never the secret; a GET body PUT back changes nothing', async () => {
    const got = await call(t, 'GET', '/v1/cluster/auditing/control_plane', { auth: admin });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ mode: 'best_effort', max_backlog: 100_000 });
    const tcpSink = got.body.sinks.find((s: any) => s.name === 'tcp-json');
    expect(tcpSink.status).toMatchObject({ state: 'delivering', backlog: 0, failed: 0, dropped: 0 });
    expect(tcpSink.status.delivered).toBeGreaterThanOrEqual(4);
    expect(JSON.stringify(got.body)).not.toContain(SECRET);
    const back = await call(t, 'PUT', '/v1/cluster/auditing/control_plane', { auth: admin, body: got.body });
    expect(back.status).toBe(200);
    // The secret was kept: the webhook still takes the batches.
    const before = hook.requests.length;
    await call(t, 'POST', '/v1/users/authorize', { body: { username: 'alice', password: PASSWORDS.alice } });
    await hook.waitFor(() => hook.requests.length > before, 15_000);
  });

  it('refuses sinks that cannot work, naming what is wrong, and changes nothing', async () => {
    const bad = [
      [{ name: 'h', type: 'webhook', format: 'json', url: 'http://example.com/x', secret: SECRET }, 'https'],
      [{ name: 'h', type: 'webhook', format: 'json', url: 'https://example.com/x' }, 'secret'],
      [{ name: 's', type: 'syslog', format: 'json', address: '127.0.0.1' }, 'port'],
      [{ name: 'f', type: 'file', format: 'json', path: '/etc/profile.d/tessera.sh' }, 'SIEM file folder'],
      [{ name: 'f', type: 'file', format: 'json', path: '../tessera.db' }, 'SIEM file folder'],
      [{ name: 's', type: 'syslog', format: 'json', address: '127.0.0.1', port: 1, url: 'https://x' }, 'url'],
      [
        { name: 's', type: 'syslog', format: 'json', address: '127.0.0.1', port: 1, protocol: 'TLS', ca_cert: 'nope' },
        'ca_cert',
      ],
    ] as const;
    for (const [sink, word] of bad) {
      const res = await call(t, 'PUT', '/v1/cluster/auditing/control_plane', { auth: admin, body: { sinks: [sink] } });
      expect(res.status, JSON.stringify(sink)).toBe(400);
      expect(res.body.error_code).toBe('invalid_audit_sink');
      expect(res.body.message).toContain(word);
    }
    const twice = await call(t, 'PUT', '/v1/cluster/auditing/control_plane', {
      auth: admin,
      body: { sinks: [sinks()[0], sinks()[0]] },
    });
    expect(twice.status).toBe(400);
    const unknown = await call(t, 'PUT', '/v1/cluster/auditing/control_plane', { auth: admin, body: { sink: [] } });
    expect(unknown.status).toBe(400);
    const got = await call(t, 'GET', '/v1/cluster/auditing/control_plane', { auth: admin });
    expect(got.body.sinks).toHaveLength(4);
  });

  it('is for admins alone', async () => {
    await t.addUser('bob', PASSWORDS.bob, 'db_member');
    const bob = await login(t, 'bob', PASSWORDS.bob);
    for (const method of ['GET', 'PUT', 'DELETE'] as const)
      expect(
        (
          await call(t, method, '/v1/cluster/auditing/control_plane', {
            auth: bob,
            body: method === 'PUT' ? {} : undefined,
          })
        ).status,
      ).toBe(403);
  });

  it('never sends a secret: no password, token or webhook secret in anything a sink received', async () => {
    const token = admin.slice(4);
    const received = [
      ...tcp.messages(),
      ...tls.messages(),
      ...hook.requests.map((r) => r.body),
      readFileSync(file(), 'utf8'),
    ].join('\n');
    expect(received.length).toBeGreaterThan(1000);
    for (const secret of [...Object.values(PASSWORDS), 'wrong-Password-9', token, token.split('.')[2]!, SECRET])
      expect(received).not.toContain(secret);
  });

  it('tells a sink taken out, and every sink when the auditing is deleted (an intruder turning it off is seen)', async () => {
    const keep = sinks().filter((s) => s.name !== 'tls-ocsf');
    const before = tls.messages().length;
    expect(
      (await call(t, 'PUT', '/v1/cluster/auditing/control_plane', { auth: admin, body: { sinks: keep } })).status,
    ).toBe(200);
    const farewellOf = () =>
      tls
        .messages()
        .slice(before)
        .map(bodyOf)
        .find((e) => e.unmapped?.type === 'siem_update');
    await until(() => farewellOf() !== undefined);
    expect(farewellOf()).toMatchObject({
      class_uid: 3004,
      actor: { user: { name: 'admin' } },
      unmapped: expect.objectContaining({ type: 'siem_update' }),
    });

    const seen = tcp.messages().length;
    expect((await call(t, 'DELETE', '/v1/cluster/auditing/control_plane', { auth: admin })).status).toBe(200);
    const deleted = () =>
      tcp
        .messages()
        .slice(seen)
        .map(bodyOf)
        .find((e) => e.type === 'siem_delete');
    await until(() => deleted() !== undefined);
    expect(deleted()).toMatchObject({ actor: 'admin', outcome: 'success' });
    // Each retiring sink delivered its backlog, its removal last, and is gone.
    // Polled with a pause: in-process requests on SQLite never yield to I/O, so a tight loop of them
    // would starve the delivery it waits for.
    let none: any;
    const end = Date.now() + 15_000;
    do {
      await new Promise((r) => setTimeout(r, 50));
      none = (await call(t, 'GET', '/v1/cluster/auditing/control_plane', { auth: admin })).body;
    } while (none.retiring.length > 0 && Date.now() < end);
    expect(none).toEqual({ mode: 'best_effort', max_backlog: 100_000, sinks: [], retiring: [] });
    const again = await call(t, 'DELETE', '/v1/cluster/auditing/control_plane', { auth: admin });
    expect(again.status).toBe(404);
    expect(again.body.error_code).toBe('audit_config_not_found');
  });

  it('writes a file sink only to a regular file of its folder: never through a link, never to a FIFO', async () => {
    const outside = path.join(tmpdir(), `tessera-outside-${process.pid}.sh`);
    writeFileSync(outside, '');
    symlinkSync(outside, path.join(dir, 'link.jsonl'));
    execFileSync('mkfifo', [path.join(dir, 'fifo.jsonl')]);
    try {
      const put = await call(t, 'PUT', '/v1/cluster/auditing/control_plane', {
        auth: admin,
        body: {
          sinks: [
            { name: 'link', type: 'file', format: 'json', path: 'link.jsonl' },
            { name: 'fifo', type: 'file', format: 'json', path: path.join(dir, 'fifo.jsonl') },
          ],
        },
      });
      expect(put.status).toBe(200);
      const status = async () =>
        Object.fromEntries(
          (await call(t, 'GET', '/v1/cluster/auditing/control_plane', { auth: admin })).body.sinks.map((s: any) => [
            s.name,
            s.status,
          ]),
        );
      const deadline = Date.now() + 15_000;
      let seen: Record<string, any> = {};
      while (Date.now() < deadline) {
        seen = await status();
        if (seen.link?.state === 'failing' && seen.fifo?.state === 'failing') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(seen.link).toMatchObject({ state: 'failing', delivered: 0, last_error: expect.stringContaining('ELOOP') });
      // No reader: refused at once (ENXIO), never waited for; with one, not a regular file.
      expect(seen.fifo).toMatchObject({
        state: 'failing',
        delivered: 0,
        last_error: expect.stringMatching(/ENXIO|not a regular file/),
      });
      expect(readFileSync(outside, 'utf8')).toBe('');
    } finally {
      rmSync(outside, { force: true });
    }
  });

  it('a sink sent elsewhere under its name keeps its backlog for where it pointed, and needs its secret again', async () => {
    const rogue = await startWebhookReceiver(dir);
    try {
      const webhook = {
        name: 'hook',
        type: 'webhook',
        format: 'json',
        url: hook.url,
        secret: SECRET,
        ca_cert: hook.caPem,
      };
      expect(
        (await call(t, 'PUT', '/v1/cluster/auditing/control_plane', { auth: admin, body: { sinks: [webhook] } }))
          .status,
      ).toBe(200);
      hook.failWith(503); // the SIEM is away: the next events wait in the outbox
      const made = await call(t, 'POST', '/v1/users', {
        auth: admin,
        body: { name: 'backdoor', password: 'Backdoor-password-1', role: 'admin' },
      });
      expect(made.status).toBe(200);
      // Pointed at another receiver without the secret: refused (the secret is the real SIEM's).
      const moved = { ...webhook, url: rogue.url, ca_cert: rogue.caPem };
      const { secret: _, ...withoutSecret } = moved;
      const refused = await call(t, 'PUT', '/v1/cluster/auditing/control_plane', {
        auth: admin,
        body: { sinks: [withoutSecret] },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.message).toContain('secret');
      // Nor to the same URL with another CA to trust (a man in the middle's): the secret is asked again.
      const otherCa = { ...webhook, ca_cert: rogue.caPem };
      const { secret: __, ...otherCaWithoutSecret } = otherCa;
      expect(
        (
          await call(t, 'PUT', '/v1/cluster/auditing/control_plane', {
            auth: admin,
            body: { sinks: [otherCaWithoutSecret] },
          })
        ).status,
      ).toBe(400);
      // With a secret of its own: accepted; the backlog stays the real SIEM's, with the move last.
      const put = await call(t, 'PUT', '/v1/cluster/auditing/control_plane', {
        auth: admin,
        body: { sinks: [{ ...moved, secret: 'another-secret-0123456789' }] },
      });
      expect(put.status).toBe(200);
      expect(put.body.retiring).toEqual(
        expect.arrayContaining([expect.objectContaining({ name: 'hook', url: hook.url })]),
      );
      hook.failWith(null);
      t.advance(60); // a retiring sink tried while the SIEM was away waits out its backoff (the test's clock)
      const got = () => hook.requests.flatMap((r) => (r.status === 200 ? JSON.parse(r.body) : []));
      await until(
        () =>
          got().some((e: any) => e.type === 'siem_update' && e.changes?.includes('sinks')) &&
          got().some((e: any) => e.username === 'backdoor'),
      );
      const taken = rogue.requests.flatMap((r) => JSON.parse(r.body));
      expect(taken.some((e: any) => e.username === 'backdoor')).toBe(false);
    } finally {
      await rogue.close();
    }
  });
});
