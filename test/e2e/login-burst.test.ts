import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, request, type ServeProcess, startServe } from '../helpers/cli.js';

/**
 * An ordinary burst — a CI pipeline whose parallel jobs all log in at once, each job's
 * credentials used by ten of them — against the real server with its default deadline,
 * queue bound and argon2id cost: every login is served, and each credential is verified
 * once (logins with the same credentials wait for the verification in flight).
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

  /** Verifications of passwords the server made so far, from its metrics. */
  async function verifications(): Promise<number> {
    const metricsUrl = `${/Management listener at (\S+) /.exec(server.stderr())![1]!}/metrics`;
    const text = await (await fetch(metricsUrl)).text();
    return Number(/^tessera_password_verify_duration_seconds_count (\d+)/m.exec(text)![1]);
  }

  it(`serves ${LOGINS} concurrent logins of ${USERS} users, every one with 200, at the cost of ${USERS} verifications`, async () => {
    const before = await verifications();
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
    expect((await verifications()) - before).toBe(USERS);
    const ms = results.map((r) => r.ms).sort((x, y) => x - y);
    const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!.toFixed(0);
    console.log(`burst of ${LOGINS}: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms`);
  });
});
