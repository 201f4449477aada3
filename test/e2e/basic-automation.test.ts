import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, FAST_ARGON2_ENV, request, type ServeProcess, startServe } from '../helpers/cli.js';

/** Automation that sends Basic credentials on every call, against the real CLI server at its default throttle (300 a minute). */
describe('Basic credentials on every call (the real CLI server, default --auth-rate-limit)', () => {
  let dataDir: string;
  let server: ServeProcess;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-basic-'));
    server = await startServe(['--no-tls'], {
      ...FAST_ARGON2_ENV,
      TESSERA_DATA_DIR: dataDir,
      TESSERA_ADMIN_USERNAME: 'bot',
      TESSERA_ADMIN_PASSWORD: 'Bot-password-1',
    });
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves 1,200 Basic calls from one address within a minute, none throttled; a wrong password is still counted and throttled', async () => {
    const statuses = new Map<number, number>();
    const started = performance.now();
    const worker = async () => {
      for (let i = 0; i < 150; i++) {
        const res = await request(`${server.url}/v1/users`, {
          headers: { authorization: basic('bot', 'Bot-password-1') },
        });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    expect(Object.fromEntries(statuses)).toEqual({ 200: 1200 });
    expect(performance.now() - started).toBeLessThan(60_000);
    // Guessing from the same address: each guess costs a verification and is counted toward the
    // default 300 a minute (with the one verification of bot's password above), then refused.
    const guesses: number[] = [];
    for (let i = 0; i < 400 && !guesses.includes(429); i++) {
      guesses.push(
        (await request(`${server.url}/v1/users`, { headers: { authorization: basic('bot', `guess-${i}`) } })).status,
      );
    }
    expect(guesses.at(-1)).toBe(429);
    expect(guesses.length).toBeGreaterThanOrEqual(290);
    expect(guesses.length).toBeLessThanOrEqual(301);
    expect(new Set(guesses.slice(0, -1))).toEqual(new Set([401]));
  });
});
