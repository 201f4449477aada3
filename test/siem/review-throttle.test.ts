import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, it } from 'vitest';
import { call, login } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';
import { type Receiver, startWebhookReceiver } from '../helpers/webhook-receiver.js';

let t: TestTessera;
let dir: string;
let hook: Receiver;
let admin: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'review-'));
  hook = await startWebhookReceiver(dir);
  t = await testTessera({ authRateLimit: 5 });
  await t.addUser('admin', 'Admin-password-1', 'admin');
  admin = await login(t, 'admin', 'Admin-password-1');
  await call(t, 'PUT', '/v1/cluster/auditing/control_plane', {
    auth: admin,
    body: {
      mode: 'blocking',
      max_backlog: 1000,
      sinks: [
        {
          name: 'siem',
          type: 'webhook',
          format: 'json',
          url: hook.url,
          ca_cert: hook.caPem,
          secret: 'secret-0123456789abcdef',
        },
      ],
    },
  });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await hook?.close();
  rmSync(dir, { recursive: true, force: true });
});
it('one throttled client against a healthy sink in blocking mode', async () => {
  let sent = 0;
  let stop = false;
  const codes = new Map<number, number>();
  const started = Date.now();
  const worker = async () => {
    while (!stop) {
      await call(t, 'POST', '/v1/users/authorize', { body: { username: 'x', password: 'x' } });
      sent++;
    }
  };
  const workers = Array.from({ length: 64 }, worker);
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const c = await call(t, 'POST', '/v1/users', {
      auth: admin,
      body: { name: `u${i}`, password: 'Some-password-12', role: 'db_viewer' },
    });
    codes.set(c.status, (codes.get(c.status) ?? 0) + 1);
  }
  stop = true;
  await Promise.all(workers);
  const s = (await call(t, 'GET', '/v1/cluster/auditing/control_plane', { auth: admin })).body.sinks[0].status;
  console.log(
    'RESULT rate',
    Math.round(sent / ((Date.now() - started) / 1000)),
    '/s; admin changes by status',
    [...codes],
    'backlog',
    s.backlog,
    'delivered',
    s.delivered,
    'state',
    s.state,
  );
}, 120_000);
