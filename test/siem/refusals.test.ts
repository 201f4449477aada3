import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

/** What a refused change leaves behind stands, and reaches the sinks, though the change is rolled back. */
describe('refusals inside a change', () => {
  let t: TestTessera;
  let dir: string;
  let admin: string;
  const file = () => path.join(dir, 'events.jsonl');
  const events = () =>
    existsSync(file())
      ? readFileSync(file(), 'utf8')
          .split('\n')
          .slice(0, -1) // whole lines only: a batch may be being written
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tessera-siem-refusals-'));
    t = await testTessera({ authRateLimit: 0, siemFileDir: dir });
    await t.addUser('admin', 'Admin-password-1', 'admin');
    await t.addUser('alice', 'Alice-password-1', 'db_viewer');
    admin = await login(t, 'admin', 'Admin-password-1');
    const sinks = [{ name: 'f', type: 'file', format: 'json', path: file() }];
    expect((await call(t, 'PUT', '/v1/cluster/auditing/control_plane', { auth: admin, body: { sinks } })).status).toBe(
      200,
    );
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a lockout reached through a password change (no credentials) stands, and its event is delivered', async () => {
    const guess = (pw: string) =>
      call(t, 'PUT', '/v1/users/password', {
        body: { username: 'alice', old_password: pw, new_password: 'New-password-77' },
      });
    for (let i = 0; i < 7; i++) expect((await guess(`wrong-${i}`)).status).toBe(401);
    expect((await t.tessera.users.findByUsername('alice'))?.lockedUntil).not.toBeNull();
    // Past the failure counter's reset, inside the lock: the right password is still refused.
    t.advance(901);
    const right = await guess('Alice-password-1');
    expect(right.status).toBe(401);
    expect(right.body.error_code).toBe('account_locked');
    await t.tessera.siemRecorder.flush();
    const deadline = Date.now() + 10_000;
    while (!events().some((e) => e.type === 'lockout') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(events().filter((e) => e.type === 'lockout')).toEqual([
      expect.objectContaining({ username: 'alice', outcome: 'success' }),
    ]);
    // Once the lock ran out, guessing through a password change locks the account again.
    t.advance(1000);
    const answers: string[] = [];
    for (let i = 0; i < 7; i++) answers.push((await guess(`again-${i}`)).body.error_code);
    expect(answers.slice(0, 5)).toEqual(Array(5).fill('invalid_credentials'));
    expect(answers.slice(5)).toEqual(['account_locked', 'account_locked']);
    expect((await guess('Alice-password-1')).body.error_code).toBe('account_locked');
    // Each refused guess too, though the request that made it was rolled back; and the second lockout.
    await t.tessera.siemRecorder.flush();
    const refusedOfAlice = () =>
      events().filter((e) => e.type === 'authenticate' && e.outcome === 'failure' && e.username === 'alice');
    const until = Date.now() + 10_000;
    // Folded where they repeat (the same reason from the same address): every attempt counted.
    const attempts = () => refusedOfAlice().reduce((n, e) => n + (e.count ?? 1), 0);
    while (attempts() < 16 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(attempts()).toBe(16);
    expect(events().filter((e) => e.type === 'lockout')).toHaveLength(2);
  });

  it('folds a flood of the same refusal into events with a count, every attempt counted', async () => {
    await t.addUser('bob', 'Bob-password-1', 'db_viewer');
    const before = events().length;
    // Two floods at once, of two names: each folds into its own events, never into the other's.
    const names = ['nobody-here', 'nobody-else'];
    await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        call(t, 'POST', '/v1/users/authorize', { body: { username: names[i % 2], password: 'guess-Password-1' } }),
      ),
    );
    await t.tessera.siemRecorder.flush();
    const refused = (name: string) =>
      events()
        .slice(before)
        .filter((e) => e.type === 'authorize' && e.username === name);
    const attempts = (name: string) => refused(name).reduce((n, e) => n + (e.count ?? 1), 0);
    const deadline = Date.now() + 10_000;
    while (names.some((n) => attempts(n) < 30) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    for (const name of names) {
      expect(attempts(name)).toBe(30);
      expect(refused(name).length).toBeLessThan(30);
    }
  });
});
