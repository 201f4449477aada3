import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, request, type ServeProcess, startServe } from '../helpers/cli.js';

/**
 * An ordinary burst — a CI pipeline whose parallel jobs all log in at once — against the
 * real server with its default deadline and queue bound: every login is served. The hash
 * is cheaper than OWASP's (a few ms) so that the burst is ordinary on any machine this runs
 * on, however busy; the bench measures the same burst at full cost (bench/RESULTS.md).
 */
describe('a burst of logins against the real server', () => {
  let server: ServeProcess;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-burst-'));
  const USERS = 20;
  const LOGINS = 200;

  beforeAll(async () => {
    server = await startServe(['--no-tls'], {
      TESSERA_DATA_DIR: dataDir,
      TESSERA_ADMIN_USERNAME: 'root',
      TESSERA_ADMIN_PASSWORD: 'root-password',
      TESSERA_ARGON2_MEMORY_KIB: '4096',
      TESSERA_ARGON2_ITERATIONS: '2',
    });
    await Promise.all(
      Array.from({ length: USERS }, (_, u) =>
        request(`${server.url}/v1/users`, {
          method: 'POST',
          headers: { authorization: basic('root', 'root-password') },
          body: JSON.stringify({ username: `job-${u}`, password: `job-password-${u}`, role: 'cluster_member' }),
        }).then((r) => expect(r.status).toBe(200)),
      ),
    );
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(`serves ${LOGINS} concurrent logins of ${USERS} users, every one with 200`, async () => {
    const results = await Promise.all(
      Array.from({ length: LOGINS }, async (_, i) => {
        const started = performance.now();
        const r = await request(`${server.url}/v1/users/authorize`, {
          method: 'POST',
          headers: { authorization: basic(`job-${i % USERS}`, `job-password-${i % USERS}`) },
        });
        return { status: r.status, code: r.json?.error_code, ms: performance.now() - started };
      }),
    );
    const refused = results.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.code}`);
    expect(refused).toEqual([]);
    const ms = results.map((r) => r.ms).sort((x, y) => x - y);
    const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!.toFixed(0);
    console.log(`burst of ${LOGINS}: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms`);
  });
});
