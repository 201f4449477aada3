import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
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
    const npm = spawn('npm', ['start', '--silent', '--', '--no-tls', '--listen', '127.0.0.1:0', '--data-dir', dataDir], { cwd: ROOT, env: cleanEnv(FAST_ARGON2_ENV) });
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
      answering = await request(`${url}/healthz`).then(() => true, () => false);
      if (answering) await sleep(50);
    }
    expect(answering, 'the server still answers after npm start was stopped').toBe(false);
    expect(stderr).toContain('SIGTERM: finishing in-flight requests, then stopping');
  });

  it('under npx, whose shell dies on SIGTERM without passing it on, stops when that shell is gone', async () => {
    // npx runs `sh -c 'tessera serve …'` with npm's variables set: the same here, without the
    // copy of the package that npx makes first.
    const dir = mkdtempSync(path.join(tmpdir(), 'tessera-npx-'));
    const shell = spawn('sh', ['-c', `'${process.execPath}' '${path.join(ROOT, 'dist/cli/main.js')}' serve --no-tls --listen 127.0.0.1:0 --data-dir '${dir}'`], {
      env: cleanEnv({ ...FAST_ARGON2_ENV, npm_lifecycle_event: 'npx', npm_command: 'exec' }),
    });
    try {
      let stderr = '';
      shell.stderr.on('data', (d) => (stderr += d));
      const until = Date.now() + 30_000;
      while (!/listening on (\S+)/.test(stderr) && Date.now() < until) await sleep(50);
      const url = /listening on (\S+)/.exec(stderr)?.[1];
      expect(url, stderr).toBeDefined();
      shell.kill('SIGTERM'); // dash exits; the server is left to itself, as under npx
      let answering = true;
      for (let i = 0; i < 100 && answering; i++) {
        answering = await request(`${url}/healthz`).then(() => true, () => false);
        if (answering) await sleep(50);
      }
      expect(answering, 'the server still answers after its npm shell was stopped').toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
