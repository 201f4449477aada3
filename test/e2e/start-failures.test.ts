import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FAST_ARGON2_ENV, runCli, startServe } from '../helpers/cli.js';
import { freshPostgres } from '../helpers/services.js';

const dirs: string[] = [];
const fresh = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-fail-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** `tessera serve` with these arguments, which must fail with one line naming what to change. */
async function failsWith(args: string[], expected: RegExp, env: Record<string, string> = {}, dataDir = fresh()) {
  const res = await runCli(['serve', '--no-tls', '--listen', '127.0.0.1:0', ...args], {
    env: { ...FAST_ARGON2_ENV, TESSERA_DATA_DIR: dataDir, ...env },
  });
  expect(res.code).not.toBe(0);
  const lines = res.stderr.trim().split('\n');
  expect(lines, res.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^tessera: /);
  expect(lines[0]).toMatch(expected);
  return res;
}

describe('a start that fails says what to do in one line, without a stack', () => {
  it('when the port is taken', async () => {
    const taken = net.createServer().listen(0, '127.0.0.1');
    await new Promise((r) => taken.once('listening', r));
    const { port } = taken.address() as net.AddressInfo;
    try {
      const dataDir = fresh();
      await failsWith(['--listen', `127.0.0.1:${port}`], /already in use.*--listen HOST:PORT/, {}, dataDir);
      // Nothing written: the next start, on a free port, is a first start.
      expect(readdirSync(dataDir)).toEqual([]);
    } finally {
      taken.close();
    }
  });

  it('when the metrics port is taken', async () => {
    const taken = net.createServer().listen(0, '127.0.0.1');
    await new Promise((r) => taken.once('listening', r));
    const { port } = taken.address() as net.AddressInfo;
    try {
      const dataDir = fresh();
      await failsWith(
        ['--metrics-listen', `127.0.0.1:${port}`],
        /cannot serve metrics on 127\.0\.0\.1:\d+ \(EADDRINUSE\).*--metrics-listen HOST:PORT \(TESSERA_METRICS_LISTEN\), or off/,
        {},
        dataDir,
      );
      expect(readdirSync(dataDir)).toEqual([]);
    } finally {
      taken.close();
    }
  });

  it('when the data directory cannot be made', async () => {
    const file = path.join(fresh(), 'a-file');
    writeFileSync(file, 'not a folder');
    await failsWith(['--data-dir', path.join(file, 'data')], /data directory .*--data-dir/);
  });

  it('when the database file is not a database', async () => {
    const dir = fresh();
    writeFileSync(path.join(dir, 'tessera.db'), 'this is not SQLite '.repeat(100));
    await failsWith(['--data-dir', dir], /SQLITE_NOTADB.*--data-dir/);
  });

  it('when PostgreSQL cannot be reached, without its password', async () => {
    const res = await failsWith(
      ['--database-url', 'postgres://tessera:hunter2@127.0.0.1:1/tessera'],
      /PostgreSQL.*--database-url/,
    );
    expect(res.stderr).not.toContain('hunter2');
    const inQuery = await failsWith(
      ['--database-url', 'postgres://tessera@127.0.0.1:1/tessera?password=hunter3&sslpassword=hunter4'],
      /PostgreSQL.*--database-url/,
    );
    expect(inQuery.stderr).not.toMatch(/hunter[34]/);
  });

  it('when another node of the same PostgreSQL issues its tokens under another address, naming both', async () => {
    const db = await freshPostgres();
    try {
      const first = await startServe(['--no-tls'], {
        ...FAST_ARGON2_ENV,
        TESSERA_DATA_DIR: fresh(),
        TESSERA_DATABASE_URL: db.url,
      });
      await first.stop();
      // The second node takes its issuer from its own (other) port, as the first did.
      await failsWith(
        [],
        /this store's tokens are issued as http:\/\/127\.0\.0\.1:\d+, and this node would issue them as .*--public-url/,
        { TESSERA_DATABASE_URL: db.url },
      );
    } finally {
      await db.drop();
    }
  });

  it('when a TLS file is missing', async () => {
    const missing = path.join(fresh(), 'missing.pem');
    const res = await runCli(['serve', '--listen', '127.0.0.1:0', '--tls-cert', missing, '--tls-key', missing], {
      env: { ...FAST_ARGON2_ENV, TESSERA_DATA_DIR: fresh() },
    });
    expect(res.code).not.toBe(0);
    expect(res.stderr.trim()).toMatch(/^tessera: cannot read the TLS file .*--tls-cert/);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('when a value is out of bounds, naming the flag and its variable', async () => {
    await failsWith(['--clock-leeway', '9'], /--clock-leeway \(TESSERA_CLOCK_LEEWAY\) must be/);
    await failsWith([], /--database-url \(TESSERA_DATABASE_URL\)/, { TESSERA_DATABASE_URL: 'mysql://db/x' });
  });

  it('and shows the stack with --log-level debug', async () => {
    const file = path.join(fresh(), 'a-file');
    writeFileSync(file, '');
    const res = await runCli(
      ['serve', '--no-tls', '--listen', '127.0.0.1:0', '--log-level', 'debug', '--data-dir', path.join(file, 'd')],
      {
        env: FAST_ARGON2_ENV,
      },
    );
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/^tessera: cannot use the data directory/);
    expect(res.stderr).toMatch(/\n\s*at /);
  });
});
