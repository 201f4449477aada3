import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { basic, FAST_ARGON2_ENV, request, runCli, startServe } from '../helpers/cli.js';

describe('tessera events (the real CLI)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-events-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('shows what the CLI and servers did, newest last, filtered; says what a bad --since is', async () => {
    const env = { ...FAST_ARGON2_ENV, TESSERA_DATA_DIR: dir };
    expect(
      (
        await runCli(['users', 'add', '--create', '--name', 'ops', '--role', 'db_viewer', '--password-stdin'], {
          env,
          input: 'Ops-password-1\n',
        })
      ).code,
    ).toBe(0);
    expect((await runCli(['users', 'delete', '--username', 'ops'], { env })).code).toBe(0);
    const json = await runCli(['events', '--json', '--since', '1h'], { env });
    expect(json.code, json.stderr).toBe(0);
    const events = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.map((e) => e.type)).toEqual(['user_created', 'user_deleted']);
    expect(events[0]).toMatchObject({ username: 'ops', ip: 'local', severity: 'INFO' });
    const text = await runCli(['events', '--type', 'user_deleted'], { env });
    expect(text.stdout).toMatch(/^\d{4}-\d\d-\d\dT\S+Z\s+INFO\s+user_deleted\s+user ops/);
    const bad = await runCli(['events', '--since', 'yesterday'], { env });
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining('how long ago: 30m, 12h, 7d')]);
    // A type no event has (the audit line's user_create, say) is named, not answered with nothing.
    const unknown = await runCli(['events', '--type', 'user_create'], { env });
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining('(did you mean user_created?)')]);
    expect(unknown.stderr).toContain('role_create, role_update, role_delete');
  });

  it('says how many times a folded event happened (logins of one account from one address within a second)', async () => {
    const env = { ...FAST_ARGON2_ENV, TESSERA_DATA_DIR: dir };
    const add = ['users', 'add', '--create', '--name', 'bot', '--role', 'db_viewer', '--password-stdin'];
    expect((await runCli(add, { env, input: 'Bot-password-1\n' })).code).toBe(0);
    const server = await startServe(['--no-tls', '--metrics-listen', 'off'], env);
    try {
      const logins = await Promise.all(
        [1, 2, 3].map(() =>
          request(`${server.url}/v1/users/authorize`, {
            method: 'POST',
            headers: { authorization: basic('bot', 'Bot-password-1') },
          }),
        ),
      );
      expect(logins.map((r) => r.status)).toEqual([200, 200, 200]);
    } finally {
      expect(await server.stop()).toBe(0); // the event log's queue written on the way out
    }
    const text = await runCli(['events', '--type', 'authorize'], { env });
    expect(text.stdout).toMatch(/authorize\s+user bot .*— realm local; from 127\.0\.0\.1; 3 times$/m);
  });
});
