import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('tessera keys', () => {
  it('lists the key, rotates (also to another algorithm), and keeps the old key published as retired', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tessera-keys-'));
    const env = { TESSERA_DATA_DIR: dir };
    const first = await runCli(['keys', 'list', '--create'], { env });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^KID\s+ALG\s+STATE\n/); // a header row, then a key a line
    const [oldKid] = first.stdout.trim().split('\n')[1]!.split(/\s+/);
    expect(first.stdout).toMatch(/ ES256 {2}active\n$/);

    const staged = await runCli(['keys', 'rotate'], { env });
    expect(staged.code).toBe(0);
    const newKid = staged.stdout.trim();
    expect(staged.stderr).toContain('Staged ES256 key');
    expect((await runCli(['keys', 'list'], { env })).stdout).toContain(`${newKid}  ES256  next (signs from`);

    const rsa = await runCli(['keys', 'rotate', '--alg', 'RS256', '--key-activation-delay', '0'], { env });
    expect(rsa.stderr).toContain('Staged RS256 key');
    const listed = (await runCli(['keys', 'list'], { env })).stdout;
    expect(listed).toContain(`${oldKid}  ES256  retired`);
    expect(listed).toContain(`${rsa.stdout.trim()}  RS256  active`);
    expect(listed.match(/ active/g)).toHaveLength(1);
  });

  it('seals keys with a master key file and will not open them without it', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tessera-keys-'));
    const keyFile = path.join(dir, 'master.key');
    writeFileSync(keyFile, randomBytes(32).toString('base64'), { mode: 0o600 });
    const sealed = await runCli(['keys', 'list', '--create', '--master-key-file', keyFile], {
      env: { TESSERA_DATA_DIR: dir },
    });
    expect(sealed.code).toBe(0);
    const without = await runCli(['keys', 'list'], { env: { TESSERA_DATA_DIR: dir } });
    expect(without.code).toBe(2);
    expect(without.stderr).toContain(
      "(signing keys, the LDAP bind password, the SSO service key, the cluster certificates' keys) are encrypted",
    );
    writeFileSync(keyFile, 'too-short');
    const bad = await runCli(['keys', 'list', '--master-key-file', keyFile], { env: { TESSERA_DATA_DIR: dir } });
    expect(bad.stderr).toContain('32 random bytes');
  });
});
