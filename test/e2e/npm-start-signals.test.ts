import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, FAST_ARGON2_ENV, request } from '../helpers/cli.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-npm-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** As systemd, Docker or Kubernetes stop what they started: SIGTERM to the process they started, here `npm start`. */
describe('npm start', () => {
  it('passes SIGTERM on to the server, which drains and exits: nothing is left answering', async () => {
    const npm = spawn(
      'npm',
      ['start', '--silent', '--', '--no-tls', '--listen', '127.0.0.1:0', '--data-dir', dataDir],
      { cwd: ROOT, env: cleanEnv(FAST_ARGON2_ENV) },
    );
    let stderr = '';
    npm.stderr.on('data', (d) => (stderr += d));
    const npmExited = new Promise((resolve) => npm.once('exit', resolve));
    const until = Date.now() + 30_000;
    while (!/listening on (\S+)/.test(stderr) && Date.now() < until) await sleep(50);
    const url = /listening on (\S+)/.exec(stderr)?.[1];
    expect(url, stderr).toBeDefined();
    expect((await request(`${url}/healthz`)).status).toBe(200);
    npm.kill('SIGTERM');
    await npmExited;
    let answering = true;
    for (let i = 0; i < 100 && answering; i++) {
      answering = await request(`${url}/healthz`).then(
        () => true,
        () => false,
      );
      if (answering) await sleep(50);
    }
    expect(answering, 'the server still answers after npm start was stopped').toBe(false);
    expect(stderr).toContain('SIGTERM: finishing in-flight requests, then stopping');
  });

  it('under npx, whose shell dies on SIGTERM without passing it on, stops when that shell is gone', async () => {
    // npx runs `sh -c 'tessera serve …'` with npm's variables set: the same here, without the
    // copy of the package that npx makes first.
    const dir = mkdtempSync(path.join(tmpdir(), 'tessera-npx-'));
    const shell = spawn(
      'sh',
      [
        '-c',
        `'${process.execPath}' '${path.join(ROOT, 'dist/cli/main.js')}' serve --no-tls --listen 127.0.0.1:0 --data-dir '${dir}'`,
      ],
      {
        env: cleanEnv({ ...FAST_ARGON2_ENV, npm_lifecycle_event: 'npx', npm_command: 'exec' }),
      },
    );
    let server: number | undefined;
    try {
      let stderr = '';
      shell.stderr.on('data', (d) => (stderr += d));
      const shellExited = new Promise((resolve) => shell.once('exit', resolve));
      const until = Date.now() + 30_000;
      while (!/listening on (\S+)/.test(stderr) && Date.now() < until) await sleep(50);
      const url = /listening on (\S+)/.exec(stderr)?.[1];
      expect(url, stderr).toBeDefined();
      server = childrenOf(shell.pid!)[0];
      expect(server, 'the shell runs the server as its child').toBeDefined();
      shell.kill('SIGTERM'); // dash exits; the server is left to itself, as under npx
      await shellExited;
      // The server looks for its parent every 500 ms, then drains: it has 20 s on a busy machine.
      const gone = Date.now() + 20_000;
      while (isRunning(server!) && Date.now() < gone) await sleep(50);
      expect(
        isRunning(server!),
        `the server still runs after its npm shell was stopped; its parent is now ${parentOf(server!)}; it said:\n${stderr}`,
      ).toBe(false);
      expect(stderr).toContain('npm (the parent process) exited: finishing in-flight requests, then stopping');
      await expect(request(`${url}/healthz`)).rejects.toThrow();
    } finally {
      if (server !== undefined && isRunning(server)) process.kill(server, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

/** The field after the command in /proc/<pid>/stat: the parent's pid (the command may hold spaces and parentheses). */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((child) => parentOf(child) === pid);
}

/** Running, not a zombie waiting for its new parent to reap it. */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
