import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FAST_ARGON2_ENV, request, runCli, type ServeProcess, startServe } from '../helpers/cli.js';

/** `tessera api-keys` on the store of a running server: the key it prints works there; the one it revokes is refused. */
describe('tessera api-keys (the real CLI beside the real server)', () => {
  let server: ServeProcess;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-api-keys-cli-'));
  const env = {
    ...FAST_ARGON2_ENV,
    TESSERA_DATA_DIR: dataDir,
    TESSERA_ADMIN_USERNAME: 'root',
    TESSERA_ADMIN_PASSWORD: 'root-password',
  };
  const withKey = (key: string) => request(`${server.url}/v1/users`, { headers: { authorization: `Bearer ${key}` } });
  /** A message for a person: one line after "tessera: ", no stack. */
  const saysOnly = (stderr: string, text: string) => {
    expect(stderr).toContain(text);
    expect(stderr).not.toMatch(/^\s+at /m);
  };

  beforeAll(async () => {
    server = await startServe(['--no-tls'], env);
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('makes a key (alone on stdout), which the server takes; lists it without the secret; revokes it, then the server refuses it', async () => {
    const made = await runCli(
      ['api-keys', 'create', '--user', 'root', '--name', 'nightly backup', '--days', '30', '--role', 'admin'],
      { env },
    );
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toMatch(/^tsr_[0-9A-Za-z]{49}\n$/);
    const key = made.stdout.trim();
    const keyId = /API key (key_[0-9A-Za-z]+) of root/.exec(made.stderr)?.[1];
    expect(keyId, made.stderr).toBeDefined();
    expect(made.stderr).toContain('shown this once');
    expect(made.stderr).toContain(`prefix ${key.slice(0, 12)}`);
    expect(made.stderr).not.toContain(key);

    expect((await withKey(key)).status).toBe(200);

    const listed = await runCli(['api-keys', 'list', '--username', 'root'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    const [header, ...rows] = listed.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^KEY_ID\s+NAME\s+PREFIX\s+ROLES\s+FROM\s+CREATED\s+EXPIRES\s+LAST USED$/);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(
      new RegExp(
        `^${keyId}\\s+nightly backup\\s+${key.slice(0, 12)}\\s+1\\s+any\\s+\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\s`,
      ),
    );
    expect(listed.stdout).not.toContain(key);
    const json = JSON.parse((await runCli(['api-keys', 'list', '--username', 'root', '--json'], { env })).stdout);
    expect(json).toEqual([expect.objectContaining({ key_id: keyId, name: 'nightly backup', role_uids: [1] })]);
    expect(json[0]).not.toHaveProperty('key');

    const revoked = await runCli(['api-keys', 'revoke', '--username', 'root', keyId!], { env });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stderr).toContain(`Revoked API key ${keyId} of root ("nightly backup"`);
    // A node reads the key again within its cache's second.
    await vi.waitFor(
      async () => {
        const refused = await withKey(key);
        expect([refused.status, refused.json?.error_code]).toEqual([401, 'invalid_api_key']);
      },
      { timeout: 3000, interval: 50 },
    );
    const empty = await runCli(['api-keys', 'list', '--username', 'root'], { env });
    expect([empty.code, empty.stdout, empty.stderr]).toEqual([0, '', 'root has no API key\n']);
  }, 60_000);

  it('says what is wrong, exits non-zero and prints no key: unknown user, unknown key_id, a bad expiry or role', async () => {
    const cases: [string[], string][] = [
      [['create', '--user', 'nobody', '--name', 'x', '--days', '3'], 'no user named "nobody"'],
      [['revoke', '--username', 'root', 'key_nosuchkey0000000'], 'root has no API key "key_nosuchkey0000000"'],
      [['create', '--user', 'root', '--name', 'x', '--days', '0'], 'must be a whole number of days'],
      [['create', '--user', 'root', '--name', 'x', '--days', '400'], 'A key lives at most 366 days'],
      [['create', '--user', 'root', '--name', 'x'], 'give the key an expiry: --days N or --expires'],
      [['create', '--user', 'root', '--name', 'x', '--days', '3', '--role', 'Nobody'], 'no role named "Nobody"'],
      [
        ['create', '--user', 'root', '--name', 'x', '--days', '3', '--role', '5'],
        "role 5 is not one of the user's roles",
      ],
      [
        ['create', '--user', 'root', '--name', 'x', '--days', '3', '--cidr', '10.0.0.0/99'],
        '"10.0.0.0/99" is no address range',
      ],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(['api-keys', ...args], { env });
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).not.toBe(0);
      expect(run.stdout).toBe('');
      saysOnly(run.stderr, message);
    }
    const none = await runCli(['api-keys', 'list', '--username', 'root', '--json'], { env });
    expect(JSON.parse(none.stdout)).toEqual([]);
  }, 60_000); // a CLI run is about 2 s on a busy CI machine

  it('has help with an example for each command, and is in the top-level help', async () => {
    expect((await runCli(['--help'])).stdout).toMatch(/^\s+api-keys\s/m);
    for (const command of ['create', 'list', 'revoke']) {
      const help = await runCli(['api-keys', command, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`tessera api-keys ${command} --username`);
    }
    expect((await runCli(['api-keys', '--help'])).stdout).toContain('no login');
  }, 60_000);
});
