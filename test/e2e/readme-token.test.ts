import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_ARGON2_ENV, type ServeProcess, startServe } from '../helpers/cli.js';

/** The README's `TOKEN=$(curl …)` one-liner, as a user pastes it, against a real server. */
const README = readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');
const ONE_LINER = /^TOKEN=\$\(.*\| curl .*\\\n.*\)$/m.exec(README)?.[0];

describe("the README's token one-liner", () => {
  let dataDir: string;
  let server: ServeProcess;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-readme-'));
    server = await startServe([], { ...FAST_ARGON2_ENV, TESSERA_DATA_DIR: dataDir });
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const run = (password: string) => {
    const script = `${ONE_LINER!.replaceAll('https://127.0.0.1:9443', server.url)}\necho "status=$? length=\${#TOKEN}"`;
    return spawnSync('bash', ['-c', script], { env: { ...process.env, PASSWORD: password }, encoding: 'utf8' });
  };

  it('sets TOKEN with the right password', () => {
    expect(ONE_LINER).toBeDefined();
    const password = /shown this once only.*\n\n {4}(\S+)\n/.exec(server.stderr())?.[1] ?? '';
    const res = run(password);
    expect(res.stdout).toMatch(/^status=0 length=\d{3,}\n$/);
  });

  it("fails loudly with a wrong one: the server's message, exit 1, TOKEN empty", () => {
    const res = run('not-the-password');
    expect(res.stdout).toBe('status=1 length=0\n');
    expect(res.stderr).toContain('Invalid username or password');
  });
});
