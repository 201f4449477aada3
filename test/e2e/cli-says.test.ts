import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAST_ARGON2_ENV, request, runCli, startServe } from '../helpers/cli.js';

describe('what the CLI says of itself: its name as run, and a start without a management listener', () => {
  it('says `npm run tessera --` in usage lines and examples under `npm run tessera`, `tessera` otherwise', async () => {
    const underNpm = await runCli(['serve', '--help'], { env: { npm_lifecycle_event: 'tessera' } });
    expect(underNpm.stdout).toMatch(/^Usage: npm run tessera -- serve \[options\]/);
    expect(underNpm.stdout).toContain('\n  npm run tessera -- serve --no-tls --listen 127.0.0.1:8080');
    expect(underNpm.stdout).not.toMatch(/(^|\s)tessera serve/);

    // Text that says the npm form already is left as it is; an example read with $(…) gets npm's -s.
    const top = await runCli(['--help'], { env: { npm_lifecycle_event: 'tessera' } });
    expect(top.stdout).toContain('run it as `npm run tessera -- <command>`');
    expect(top.stdout).not.toContain('npm run npm run');
    expect(top.stdout).toMatch(/^Usage: npm run tessera -- \[options\] \[command\]/);
    const token = await runCli(['token', '--help'], { env: { npm_lifecycle_event: 'tessera' } });
    expect(token.stdout).toContain('TOKEN=$(npm run -s tessera -- token --username');

    // `npm start --listen 127.0.0.1:1`: npm kept the flag and passed on its value alone.
    const swallowed = await runCli(['serve', '127.0.0.1:1'], { env: { npm_lifecycle_event: 'start' } });
    expect(swallowed.stderr).toContain('too many arguments');
    expect(swallowed.stderr).toContain('put "--" first, as in `npm start -- --listen 127.0.0.1:8080`');

    const onPath = await runCli(['serve', '--help'], { env: { npm_lifecycle_event: '' } });
    expect(onPath.stdout).toMatch(/^Usage: tessera serve \[options\]/);
    expect(onPath.stdout).toContain('\n  tessera serve --no-tls --listen 127.0.0.1:8080');
  });

  it('names an unknown option before a missing required one (`--user` for `--username`)', async () => {
    const typo = await runCli(['token', '--user', 'ops']);
    expect([typo.code, typo.stderr]).toEqual([1, expect.stringContaining("unknown option '--user'")]);
    expect(typo.stderr).not.toContain('required option');
    const none = await runCli(['users', 'unlock']);
    expect([none.code, none.stderr]).toEqual([
      1,
      expect.stringContaining("required option '--username <name>' not specified"),
    ]);
  });

  it('says at start that there is no management listener, and where the probes are then', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-no-metrics-'));
    const server = await startServe(['--no-tls', '--metrics-listen', 'off'], {
      ...FAST_ARGON2_ENV,
      TESSERA_DATA_DIR: dataDir,
    });
    try {
      expect(server.stderr()).toContain('No management listener (--metrics-listen off)');
      expect(server.stderr()).not.toContain('Management listener at');
      expect((await request(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
