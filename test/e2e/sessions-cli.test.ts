import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { basic, FAST_ARGON2_ENV, request, runCli, type ServeProcess, startServe } from '../helpers/cli.js';

/** `tessera sessions` on the store of a running server: what it ends, the server refuses within a second. */
describe('tessera sessions (the real CLI beside the real server)', () => {
  let server: ServeProcess;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-sessions-cli-'));
  const env = {
    ...FAST_ARGON2_ENV,
    TESSERA_DATA_DIR: dataDir,
    TESSERA_ADMIN_USERNAME: 'root',
    TESSERA_ADMIN_PASSWORD: 'root-password',
  };
  const login = async (username: string, password: string) =>
    (
      await request(`${server.url}/v1/users/authorize`, {
        method: 'POST',
        headers: { 'user-agent': 'ops-script/1.0' },
        body: JSON.stringify({ username, password }),
      })
    ).json.access_token as string;
  const read = (token: string) => request(`${server.url}/v1/users`, { headers: { authorization: `JWT ${token}` } });
  const sidOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sid as string;
  /** A node reads what the CLI wrote to the store within its half-second poll. */
  const refusedSoon = (token: string) =>
    vi.waitFor(async () => expect((await read(token)).status).toBe(401), { timeout: 3000, interval: 50 });

  beforeAll(async () => {
    server = await startServe(['--no-tls'], env);
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("lists a user's sessions, ends one, then all of them, then every session of the cluster", async () => {
    const [one, two] = [await login('root', 'root-password'), await login('root', 'root-password')];
    const listed = await runCli(['sessions', 'list', '--username', 'root'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^SID\s+REALM\s+FROM\s+STARTED/);
    expect(listed.stdout).toContain(sidOf(one));
    expect(listed.stdout).toContain('ops-script/1.0');
    const json = JSON.parse((await runCli(['sessions', 'list', '--username', 'root', '--json'], { env })).stdout);
    expect(json.map((s: { sid: string }) => s.sid).sort()).toEqual([sidOf(one), sidOf(two)].sort());

    const ended = await runCli(['sessions', 'end', '--username', 'root', '--sid', sidOf(one)], { env });
    expect([ended.code, ended.stderr]).toEqual([0, expect.stringContaining(`Ended session ${sidOf(one)}`)]);
    await refusedSoon(one);
    expect((await read(two)).status).toBe(200);

    const bad = await runCli(['sessions', 'end', '--username', 'root'], { env });
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining('give --sid SID or --all')]);
    const all = await runCli(['sessions', 'end', '--username', 'root', '--all'], { env });
    expect([all.code, all.stderr]).toEqual([0, expect.stringContaining('Ended 1 sessions of root')]);
    await refusedSoon(two);
    expect(
      (await request(`${server.url}/v1/users`, { headers: { authorization: basic('root', 'root-password') } })).status,
    ).toBe(200);

    const three = await login('root', 'root-password');
    expect((await runCli(['sessions', 'end-all'], { env })).code).toBe(1); // --yes is required
    const everything = await runCli(['sessions', 'end-all', '--yes'], { env });
    expect([everything.code, everything.stderr]).toEqual([0, expect.stringContaining('Ended every session')]);
    await refusedSoon(three);
    expect((await read(await login('root', 'root-password'))).status).toBe(200);
  });
});
