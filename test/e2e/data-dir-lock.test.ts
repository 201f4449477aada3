import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FAST_ARGON2_ENV, request, runCli, type ServeProcess, startServe } from '../helpers/cli.js';

let dir: string;
const servers: ServeProcess[] = [];
afterEach(async () => {
  for (const s of servers.splice(0))
    if (s.child.exitCode === null && s.child.signalCode === null) await s.stop('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const serveArgs = ['--no-tls', '--listen', '127.0.0.1:0'];

describe('one server a data directory', () => {
  it('refuses a second server on the same SQLite directory, naming the first one’s pid; a killed first one leaves no stale lock', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tessera-lock-'));
    const env = {
      ...FAST_ARGON2_ENV,
      TESSERA_DATA_DIR: dir,
      TESSERA_ADMIN_USERNAME: 'root',
      TESSERA_ADMIN_PASSWORD: 'root-password',
    };
    const first = await startServe(serveArgs, env);
    servers.push(first);

    const second = await runCli(['serve', ...serveArgs], { env });
    expect(second.code).not.toBe(0);
    expect(second.stderr.trim()).toBe(
      `tessera: another Tessera (pid ${first.child.pid}) serves the data directory ${dir}: stop it first, or give this one another --data-dir`,
    );
    expect((await request(`${first.url}/healthz`)).status).toBe(200);
    // npm start typed twice: the same port too. Its holder is named, not only the port.
    const port = new URL(first.url).port;
    const again = await runCli(['serve', '--no-tls', '--listen', `127.0.0.1:${port}`], { env });
    expect(again.code).not.toBe(0);
    expect(again.stderr.trim()).toBe(
      `tessera: another Tessera (pid ${first.child.pid}) serves the data directory ${dir} and holds the port: stop it first, or give this one another --data-dir and --listen HOST:PORT`,
    );

    expect(await first.stop('SIGKILL')).toBeNull();
    const third = await startServe(serveArgs, env);
    servers.push(third);
    expect((await request(`${third.url}/healthz`)).status).toBe(200);
  });

  it('a clean stop leaves no tessera.pid behind; a command that records nothing leaves no empty audit.log', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tessera-lock-'));
    const env = { ...FAST_ARGON2_ENV, TESSERA_DATA_DIR: dir };
    const server = await startServe(serveArgs, env);
    servers.push(server);
    expect(readFileSync(path.join(dir, 'tessera.pid'), 'utf8')).toBe(`${server.child.pid}\n`);
    expect(await server.stop('SIGTERM'), server.stderr()).toBe(0);
    expect(existsSync(path.join(dir, 'tessera.pid'))).toBe(false);

    expect((await runCli(['users', 'list'], { env })).code).toBe(0);
    expect(existsSync(path.join(dir, 'audit.log'))).toBe(false);
    const added = await runCli(['users', 'add', '--username', 'ops', '--role', 'admin', '--password-stdin'], {
      env,
      input: 'ops-password-1',
    });
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(readFileSync(path.join(dir, 'audit.log'), 'utf8').trim())).toMatchObject({
      audit: 'user_create',
      username: 'ops',
    });
  });

  it('CLI commands refuse a --data-dir that holds no store, unless --create', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tessera-lock-'));
    const typo = path.join(dir, 'dta');
    for (const args of [
      ['users', 'list'],
      ['roles', 'list'],
      ['keys', 'list'],
      ['issuer', 'show'],
    ]) {
      const refused = await runCli([...args, '--data-dir', typo]);
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stderr).toBe(
        `tessera: no store in ${typo} (it has no tessera.db): give the --data-dir (TESSERA_DATA_DIR) that \`tessera serve\` uses (a new store is made by serve, or with --create by users add, users import and keys)\n`,
      );
      // A command that only reads has no --create to offer (keys list makes the first key).
      if (args[0] === 'keys') continue;
      const offered = await runCli([...args, '--create', '--data-dir', typo]);
      expect([offered.code, offered.stderr]).toEqual([1, expect.stringContaining("unknown option '--create'")]);
    }
    expect(existsSync(typo)).toBe(false);

    const made = await runCli(
      ['users', 'add', '--username', 'ops', '--role', 'admin', '--password-stdin', '--create', '--data-dir', typo],
      { env: FAST_ARGON2_ENV, input: 'ops-password-1' },
    );
    expect(made.code, made.stderr).toBe(0);
    expect((await runCli(['users', 'list', '--data-dir', typo])).stdout).toContain('ops');
  }, 90_000); // twelve CLI starts, each a second or two of a busy machine's
});
