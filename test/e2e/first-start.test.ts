import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { makeConfig } from '../../src/config/config.js';
import { openAccounts } from '../../src/tessera.js';
import { ensureFirstAdmin } from '../../src/users/first-admin.js';
import { KyselyUnshownPasswordMark } from '../../src/users/unshown-password-mark.js';
import { basic, CLI, cleanEnv, FAST_ARGON2_ENV, type Reply, request, runCli, startServe } from '../helpers/cli.js';
import { FAST_ARGON2 } from '../helpers/test-tessera.js';

const dirs: string[] = [];
const fresh = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-first-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const login = (url: string, username: string, password: string) =>
  request(`${url}/v1/users/authorize`, { method: 'POST', headers: { authorization: basic(username, password) } });

describe('the first start of tessera serve (subprocess)', () => {
  it('makes no admin when it cannot listen, so the next start makes one and shows its password', async () => {
    const dataDir = fresh();
    const taken = net.createServer().listen(0, '127.0.0.1');
    await new Promise((r) => taken.once('listening', r));
    const { port } = taken.address() as net.AddressInfo;
    const failed = await runCli(['serve', '--no-tls', '--listen', `127.0.0.1:${port}`, '--data-dir', dataDir], {
      env: FAST_ARGON2_ENV,
    });
    taken.close();
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).not.toContain('Created the first admin');
    const server = await startServe(['--no-tls', '--data-dir', dataDir], FAST_ARGON2_ENV);
    try {
      const password = /shown this once only.*\n\n {4}(\S+)\n/.exec(server.stderr())?.[1] ?? '';
      expect((await login(server.url, 'admin@tessera.local', password)).status).toBe(200);
      // Its standard error is a pipe here, as under a supervisor: it says where the password went.
      expect(server.stderr()).toContain("this password is now in the service's log");
      expect(server.stderr()).toContain(`data in ${dataDir})`);
    } finally {
      await server.stop();
    }
  });

  it('says so when an earlier start made the admin but never showed its password, with the command that sets one', async () => {
    const dataDir = fresh();
    // What a start killed between making the admin and printing its password leaves behind.
    const accounts = await openAccounts(makeConfig({ dataDir, argon2: FAST_ARGON2 }));
    await ensureFirstAdmin(accounts.users, accounts.userCreation, new KyselyUnshownPasswordMark(accounts.db), {});
    await accounts.close();

    // Started as `npm start` starts it: the command is said as the README runs the CLI.
    let server = await startServe(['--no-tls', '--data-dir', dataDir], {
      ...FAST_ARGON2_ENV,
      npm_lifecycle_event: 'start',
    });
    await server.stop();
    expect(server.stderr()).toContain(
      'admin@tessera.local got a generated password that an earlier start never showed',
    );
    const command = /\n {4}npm run tessera -- (users set-password .*)\n/.exec(server.stderr())?.[1];
    expect(command).toBe(`users set-password --username 'admin@tessera.local' --data-dir '${dataDir}'`);
    const args = command!.split(' ').map((a) => a.replace(/^'|'$/g, ''));
    const set = await runCli([...args, '--password-stdin'], { env: FAST_ARGON2_ENV, input: 'a-password-I-chose-1\n' });
    expect(set.code, set.stderr).toBe(0);

    server = await startServe(['--no-tls', '--data-dir', dataDir], FAST_ARGON2_ENV);
    try {
      expect(server.stderr()).not.toContain('never showed');
      expect((await login(server.url, 'admin@tessera.local', 'a-password-I-chose-1')).status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it('says that TESSERA_ADMIN_* were ignored on a store that has users', async () => {
    const dataDir = fresh();
    const env = { ...FAST_ARGON2_ENV, TESSERA_ADMIN_USERNAME: 'root', TESSERA_ADMIN_PASSWORD: 'root-password-1' };
    let server = await startServe(['--no-tls', '--data-dir', dataDir], env);
    await server.stop();
    expect(server.stderr()).toContain('Created the first admin: root');
    expect(server.stderr()).not.toContain('ignored');
    server = await startServe(['--no-tls', '--data-dir', dataDir], env);
    await server.stop();
    expect(server.stderr()).toContain('TESSERA_ADMIN_USERNAME and TESSERA_ADMIN_PASSWORD were ignored');
  });

  it('names TESSERA_ADMIN_PASSWORD when the policy refuses it, and makes nobody', async () => {
    const dataDir = fresh();
    const env = { ...FAST_ARGON2_ENV, TESSERA_ADMIN_USERNAME: 'root', TESSERA_ADMIN_PASSWORD: 'short' };
    const res = await runCli(['serve', '--no-tls', '--listen', '127.0.0.1:0', '--data-dir', dataDir], { env });
    expect(res.code).not.toBe(0);
    expect(res.stderr.trim()).toMatch(
      /^tessera: TESSERA_ADMIN_PASSWORD was refused for the first admin: The password must have at least 8 characters$/,
    );
    expect(res.stderr).not.toContain('short');
    const server = await startServe(['--no-tls', '--data-dir', dataDir], {
      ...env,
      TESSERA_ADMIN_PASSWORD: 'root-password-1',
    });
    await server.stop();
    expect(server.stderr()).toContain('Created the first admin: root');
  });

  it('answers a request sent the moment the port accepts with 200 or 503 starting, never 401, in 10 fresh starts', async () => {
    const seen: string[] = [];
    for (let i = 0; i < 10; i++) {
      const dataDir = fresh();
      const port = await freePort();
      // Default argon2id (the admin's password takes its real time to hash): the window is as wide as in production.
      const child = spawn(
        process.execPath,
        [CLI, 'serve', '--no-tls', '--listen', `127.0.0.1:${port}`, '--data-dir', dataDir],
        {
          // No metrics listener: its port 0 could be given the port just found free, before the API binds it.
          env: cleanEnv({
            TESSERA_ADMIN_USERNAME: 'deployer',
            TESSERA_ADMIN_PASSWORD: 'Deployer-password-1',
            TESSERA_METRICS_LISTEN: 'off',
          }),
        },
      );
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      try {
        const first = await firstAnswer(
          `http://127.0.0.1:${port}/v1/users/authorize`,
          basic('deployer', 'Deployer-password-1'),
        );
        seen.push(`${first.status} ${first.json?.error_code ?? ''}`.trim());
        if (first.status !== 200) {
          expect([first.status, first.json.error_code, first.headers['retry-after']]).toEqual([503, 'starting', '1']);
          while (!stderr.includes('listening on')) await sleep(20);
        }
        // Whatever the first call met, the admin logs in (nothing counted toward its lockout).
        expect((await login(`http://127.0.0.1:${port}`, 'deployer', 'Deployer-password-1')).status).toBe(200);
      } finally {
        child.kill('SIGKILL');
        await new Promise((resolve) => child.once('exit', resolve));
      }
    }
    expect(seen.filter((s) => s.startsWith('401'))).toEqual([]);
  }, 120_000); // ten starts: a few seconds each on a busy machine
});

async function freePort(): Promise<number> {
  const probe = net.createServer().listen(0, '127.0.0.1');
  await new Promise((r) => probe.once('listening', r));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((r) => probe.close(r));
  return port;
}

/** Calls again and again until the port accepts, and returns the first answer. */
async function firstAnswer(url: string, authorization: string): Promise<Reply> {
  const until = Date.now() + 20_000;
  for (;;) {
    try {
      return await request(url, { method: 'POST', headers: { authorization } });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ECONNREFUSED' || Date.now() > until) throw err;
      await sleep(2);
    }
  }
}
