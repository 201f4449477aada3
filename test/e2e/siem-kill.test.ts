import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, FAST_ARGON2_ENV, request, runCli, type ServeProcess, startServe } from '../helpers/cli.js';
import { type Collector, startCollector } from '../helpers/rsyslog.js';

const ROOT = basic('root', 'root-password-1');
const json = (body: unknown) => JSON.stringify(body);
const BURST = 80;

async function until(check: () => Promise<boolean> | boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * kill -9 of the real server in the middle of a burst of changes (the embedded SQLite store):
 * every change that was answered — and every one that was made at all — has its event delivered
 * to the collector once the server is back; no event of a change that was not made.
 */
describe('a node killed with -9 during a burst of changes loses no event', () => {
  let dir: string;
  let collector: Collector;
  let server: ServeProcess | undefined;
  const env = () => ({
    ...FAST_ARGON2_ENV,
    TESSERA_DATA_DIR: path.join(dir, 'data'),
    TESSERA_ADMIN_USERNAME: 'root',
    TESSERA_ADMIN_PASSWORD: 'root-password-1',
    TESSERA_AUTH_RATE_LIMIT: '0',
  });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tessera-siem-kill-'));
    collector = await startCollector({ dir });
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await collector?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('delivers the event of every change made, answered or not, after the restart', async () => {
    server = await startServe(['--no-tls'], env());
    const put = await request(`${server.url}/v1/cluster/auditing/control_plane`, {
      method: 'PUT',
      headers: { authorization: ROOT },
      body: json({
        sinks: [{ name: 'siem', type: 'syslog', format: 'json', address: '127.0.0.1', port: collector.port }],
      }),
    });
    expect(put.status).toBe(200);
    // Hold deliveries back: what the burst records waits in the outbox when the node dies.
    await collector.stop();

    const url = server.url;
    const answered: string[] = [];
    const burst = Array.from({ length: BURST }, (_, i) =>
      request(`${url}/v1/users`, {
        method: 'POST',
        headers: { authorization: ROOT },
        body: json({
          name: `burst${i}`,
          email: `burst${i}@example.com`,
          password: 'Burst-password-1',
          role: 'db_viewer',
        }),
      }).then(
        (r) => {
          if (r.status === 200) answered.push(`burst${i}`);
        },
        () => {}, // the node died before answering
      ),
    );
    await until(() => answered.length >= BURST / 4, 20_000);
    await server.stop('SIGKILL');
    await Promise.all(burst);
    expect(answered.length).toBeGreaterThan(0);
    expect(answered.length).toBeLessThan(BURST); // the kill landed in the middle

    await collector.start();
    server = await startServe(['--no-tls'], env());
    const made = await request(`${server.url}/v1/users`, { headers: { authorization: ROOT } });
    const inStore = (made.json as { name: string }[]).map((u) => u.name).filter((n) => n.startsWith('burst'));
    expect(inStore).toEqual(expect.arrayContaining(answered));

    // The dead node's lease lapses (10 s), the new one delivers the backlog.
    const delivered = () =>
      new Set(
        collector
          .messages()
          .map((m) => JSON.parse(m.slice(m.indexOf(' - {') + 3)))
          .filter((e) => e.type === 'user_created')
          .map((e) => e.username as string)
          .filter((name) => name.startsWith('burst')), // the first admin's creation may come too (made as the sink was set)
      );
    await until(() => delivered().size >= inStore.length, 30_000);
    expect([...delivered()].sort()).toEqual([...inStore].sort());
    console.log(
      `siem kill -9: ${answered.length} changes answered, ${inStore.length} made, every one's event delivered`,
    );
  }, 90_000);

  it("delivers a CLI command's change too (written to the outbox with it, delivered by the server)", async () => {
    const add = await runCli(['users', 'add', '--username', 'from-cli', '--role', 'db_viewer', '--password-stdin'], {
      env: env(),
      input: 'Cli-password-1\n',
    });
    expect(add.code, add.stderr).toBe(0);
    await until(
      () =>
        collector.messages().some((m) => {
          const e = JSON.parse(m.slice(m.indexOf(' - {') + 3));
          return e.type === 'user_created' && e.username === 'from-cli' && e.ip === 'local';
        }),
      15_000,
    );
  });
});
