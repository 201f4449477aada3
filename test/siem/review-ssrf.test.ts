import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, it } from 'vitest';
import { call, login } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';
import { type Receiver, startWebhookReceiver } from '../helpers/webhook-receiver.js';

const PATH = '/v1/cluster/auditing/control_plane';
let dir: string;
let hook: Receiver;
let t: TestTessera;
let admin: string;
let banner: net.Server;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'review-'));
  hook = await startWebhookReceiver(dir);
  // an internal service that greets and closes (an SMTP/SSH-like banner)
  banner = net.createServer((s) => {
    s.write('220 internal-mail.corp ESMTP Postfix\r\n');
    s.end();
  });
  await new Promise<void>((r) => banner.listen(0, '127.0.0.1', r));
  t = await testTessera({ authRateLimit: 0 });
  await t.addUser('admin', 'Admin-password-1', 'admin');
  admin = await login(t, 'admin', 'Admin-password-1');
}, 60_000);
afterAll(async () => {
  await t?.close();
  await hook?.close();
  banner.close();
  rmSync(dir, { recursive: true, force: true });
});

it('last_error tells an admin what is listening where', async () => {
  const port = (banner.address() as net.AddressInfo).port;
  const sinks = [
    { name: 'closed', type: 'syslog', format: 'json', address: '127.0.0.1', port: 1 },
    { name: 'banner', type: 'syslog', format: 'json', address: '127.0.0.1', port },
    { name: 'metadata', type: 'syslog', format: 'json', address: '169.254.169.254', port: 80 },
    {
      name: 'hook-noca',
      type: 'webhook',
      format: 'json',
      url: hook.url.replace('127.0.0.1', 'localhost'),
      secret: 'secret-0123456789abcdef',
    },
    {
      name: 'hook-wrongname',
      type: 'webhook',
      format: 'json',
      url: hook.url.replace('127.0.0.1', '127.0.0.2'),
      secret: 'secret-0123456789abcdef',
      ca_cert: hook.caPem,
    },
  ];
  const put = await call(t, 'PUT', PATH, { auth: admin, body: { sinks } });
  console.log('PUT', put.status);
  await new Promise((r) => setTimeout(r, 12_000));
  const got = await call(t, 'GET', PATH, { auth: admin });
  await t.addUser('um', 'Um-password-123', 'user_manager');
  const um = await login(t, 'um', 'Um-password-123');
  const logs = await call(t, 'GET', '/v1/logs?limit=100', { auth: um });
  console.log('user_manager reads ->', logs.status, JSON.stringify(logs.body).match(/siem_sink_failed[^}]*/g));
  for (const s of got.body.sinks)
    console.log(
      s.name,
      '->',
      s.status.state,
      s.status.last_error,
      'delivered',
      s.status.delivered,
      'backlog',
      s.status.backlog,
    );
}, 60_000);
