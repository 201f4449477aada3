import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, login } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
let dir: string;
let admin: string;
const file = () => path.join(dir, 'events.jsonl');
const events = () =>
  existsSync(file())
    ? readFileSync(file(), 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'review-'));
  t = await testTessera({ authRateLimit: 0 });
  await t.addUser('admin', 'Admin-password-1', 'admin');
  await t.addUser('alice', 'Alice-password-1', 'db_viewer');
  await t.addUser('carol', 'Carol-password-1', 'db_viewer');
  admin = await login(t, 'admin', 'Admin-password-1');
  const put = await call(t, 'PUT', '/v1/cluster/auditing/control_plane', {
    auth: admin,
    body: { sinks: [{ name: 'f', type: 'file', format: 'json', path: file() }] },
  });
  expect(put.status).toBe(200);
}, 60_000);
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('a lockout reached through PUT /v1/users/password (no credentials) is rolled back with the unit', async () => {
  const guess = (user: string, pw: string) =>
    call(t, 'PUT', '/v1/users/password', {
      body: { username: user, old_password: pw, new_password: 'New-password-77' },
    });
  const statuses: number[] = [];
  for (let i = 0; i < 7; i++) statuses.push((await guess('alice', `wrong-${i}`)).status);
  console.log('change-password guesses:', statuses);
  const alice = await t.tessera.users.findByUsername('alice');
  console.log('alice lockedUntil after 7 wrong old_password:', alice?.lockedUntil);

  // The same through the login route (not a unit): the lock sticks.
  for (let i = 0; i < 7; i++)
    await call(t, 'POST', '/v1/users/authorize', { body: { username: 'carol', password: `w-${i}` } });
  const carol = await t.tessera.users.findByUsername('carol');
  console.log('carol lockedUntil after 7 wrong logins:', carol?.lockedUntil);

  await t.tessera.siemRecorder.flush();
  await new Promise((r) => setTimeout(r, 1500));
  const lockouts = events()
    .filter((e) => e.type === 'lockout')
    .map((e) => e.username);
  console.log('lockout events in the sink:', lockouts);
  const log = await call(t, 'GET', '/v1/logs?limit=200', { auth: admin });
  console.log('event log lockouts:', JSON.stringify(log.body).match(/"lockout"/g)?.length, log.status);

  // Past the counter's reset (900 s) but well inside the lock's duration (1800 s): guessing resumes.
  t.advance(901);
  const after = await guess('alice', 'Alice-password-1');
  console.log('right old_password 901 s later:', after.status, after.body);
  expect(alice?.lockedUntil).toBeNull();
  expect(carol?.lockedUntil).not.toBeNull();
});
