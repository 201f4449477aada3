import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, cleanEnv, FAST_ARGON2_ENV, request, startServe } from '../helpers/cli.js';

const ENV = { ...FAST_ARGON2_ENV, TESSERA_ADMIN_USERNAME: 'root', TESSERA_ADMIN_PASSWORD: 'root-password' };
const KILLS = 20;
const SEED = 0x7e55e7a;

/** mulberry32: a small seeded generator, so that a failing run can be repeated. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const tick = () => new Promise((r) => setImmediate(r));

/**
 * Starts `tessera serve` on an empty data dir and kills it with -9 `ms` after the store file
 * appears: the part of a first start that writes (schema, first key, first admin, TLS files).
 */
async function killFirstStart(dataDir: string, ms: number): Promise<void> {
  const child = spawn(process.execPath, [CLI, 'serve', '--listen', '127.0.0.1:0'], {
    env: cleanEnv({ ...ENV, TESSERA_DATA_DIR: dataDir }),
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const giveUp = Date.now() + 10_000;
  while (!existsSync(path.join(dataDir, 'tessera.db')) && Date.now() < giveUp) await tick();
  const at = performance.now() + ms;
  while (performance.now() < at) await tick();
  child.kill('SIGKILL');
  await exited;
}

/** The next start opens the store and serves: ready, and the first admin can log in. */
async function startsAfterwards(dataDir: string): Promise<void> {
  const server = await startServe([], { ...ENV, TESSERA_DATA_DIR: dataDir });
  try {
    const ca = readFileSync(path.join(dataDir, 'tls', 'cert.pem'));
    expect((await request(`${server.url}/readyz`, { ca })).status).toBe(200);
    const login = await request(`${server.url}/v1/users/authorize`, {
      method: 'POST',
      ca,
      body: JSON.stringify({ username: 'root', password: 'root-password' }),
    });
    expect(login.status).toBe(200);
  } finally {
    await server.stop();
  }
}

describe('a first start killed at any moment', () => {
  it(`leaves a store that the next start opens (${KILLS} seeded kills)`, async () => {
    const next = random(SEED);
    const dirs: string[] = [];
    try {
      for (let i = 0; i < KILLS; i++) {
        const dir = mkdtempSync(path.join(tmpdir(), 'tessera-kill-'));
        dirs.push(dir);
        // Two in three land in the first 40 ms (the schema is made some 20-30 ms after the
        // file appears), the rest anywhere until the server listens.
        const at = i % 3 === 2 ? next() * 400 : next() * 40;
        await killFirstStart(dir, at);
        await expect(
          startsAfterwards(dir),
          `killed ${at.toFixed(1)} ms after the store appeared (seed ${SEED}, kill ${i})`,
        ).resolves.toBeUndefined();
      }
    } finally {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  }, 300_000); // 40 starts: some 100 s alone, more beside a full run's browsers
});
