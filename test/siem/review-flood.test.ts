import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, login } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';
import { type Receiver, startWebhookReceiver } from '../helpers/webhook-receiver.js';

const PATH = '/v1/cluster/auditing/control_plane';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let dir: string;
let hook: Receiver;
let t: TestTessera;
let admin: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'review-'));
  hook = await startWebhookReceiver(dir);
  t = await testTessera({ authRateLimit: 0 });
  await t.addUser('admin', 'Admin-password-1', 'admin');
  admin = await login(t, 'admin', 'Admin-password-1');
}, 60_000);
afterAll(async () => {
  await t?.close();
  await hook?.close();
  rmSync(dir, { recursive: true, force: true });
});

const sink = () => ({
  name: 'siem',
  type: 'webhook',
  format: 'json',
  url: hook.url,
  ca_cert: hook.caPem,
  secret: 'secret-0123456789abcdef',
});
const flood = async (n: number) => {
  for (let i = 0; i < n; i += 50)
    await Promise.all(
      Array.from({ length: 50 }, (_, j) =>
        call(t, 'POST', '/v1/users/authorize', { body: { username: `nobody-${i + j}`, password: 'x' } }),
      ),
    );
  await t.tessera.siemRecorder.flush();
};
const status = async () => (await call(t, 'GET', PATH, { auth: admin })).body.sinks[0].status;

it('best_effort: unauthenticated refusals push an admin change out of the backlog', async () => {
  expect(
    (await call(t, 'PUT', PATH, { auth: admin, body: { mode: 'best_effort', max_backlog: 100, sinks: [sink()] } }))
      .status,
  ).toBe(200);
  await sleep(500);
  hook.failWith(503); // the SIEM is away for a while
  const made = await call(t, 'POST', '/v1/users', {
    auth: admin,
    body: { name: 'backdoor', password: 'Backdoor-pass-1', role: 'admin' },
  });
  expect(made.status).toBe(200);
  await flood(300);
  await sleep(1500);
  console.log('status while away:', await status());
  hook.failWith(null);
  hook.requests.length = 0;
  t.advance(60);
  await hook.waitFor(() => hook.requests.length > 0, 40_000);
  await sleep(1500);
  const types = hook.requests.flatMap((r) => JSON.parse(r.body)).map((e: any) => `${e.type}:${e.username ?? ''}`);
  console.log(
    'delivered after recovery:',
    types.length,
    'backdoor user_created among them:',
    types.includes('user_created:backdoor'),
  );
  expect(types.includes('user_created:backdoor')).toBe(false);
}, 90_000);

it('blocking: unauthenticated refusals fill the bound and admin changes get 503; refusals keep piling past it', async () => {
  expect(
    (await call(t, 'PUT', PATH, { auth: admin, body: { mode: 'blocking', max_backlog: 100, sinks: [sink()] } })).status,
  ).toBe(200);
  await sleep(500);
  hook.failWith(503);
  await flood(400);
  await sleep(1000);
  const change = await call(t, 'POST', '/v1/users', {
    auth: admin,
    body: { name: 'eve', password: 'Eve-password-12', role: 'db_viewer' },
  });
  console.log('admin change:', change.status, change.body.error_code, 'backlog:', (await status()).backlog);
  hook.failWith(null);
}, 90_000);
