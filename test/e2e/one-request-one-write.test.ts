import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { basic, request, type ServeProcess, startServe } from '../helpers/cli.js';

const json = (body: unknown) => JSON.stringify(body);
const USERS = 6;

/**
 * PUT /v1/users/{uid} with a role and a password is one request: a server killed with -9
 * while such writes are under way leaves each user as it was or as the request made it —
 * never the new role with the old password (a state no request can give).
 */
describe('a server killed during changes of role and password', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-one-write-'));
  let server: ServeProcess | undefined;
  afterAll(async () => {
    await server?.stop('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const serve = () =>
    startServe(['--no-tls'], {
      TESSERA_DATA_DIR: dir,
      TESSERA_ADMIN_USERNAME: 'root',
      TESSERA_ADMIN_PASSWORD: 'root-password',
      TESSERA_AUTH_RATE_LIMIT: '0',
      // Slow hashes (~0.1 s each, several at once): the kill lands while they are computed.
      TESSERA_ARGON2_MEMORY_KIB: '65536',
      TESSERA_ARGON2_ITERATIONS: '3',
    });
  const root = { authorization: basic('root', 'root-password') };
  const logsIn = async (s: ServeProcess, username: string, password: string) =>
    (await request(`${s.url}/v1/users/authorize`, { method: 'POST', body: json({ username, password }) })).status ===
    200;

  it('leaves every user all old or all new, at four moments of the writes', async () => {
    server = await serve();
    const seen = { old: 0, new: 0 };
    for (const [round, afterMs] of [20, 150, 300, 500].entries()) {
      const users: { name: string; uid: number }[] = [];
      for (let i = 0; i < USERS; i++) {
        const name = `r${round}u${i}`;
        const made = await request(`${server.url}/v1/users`, {
          method: 'POST',
          headers: root,
          body: json({ name, password: `Old-password-${name}`, role: 'db_viewer' }),
        });
        expect(made.status).toBe(200);
        users.push({ name, uid: made.json.uid });
      }
      const puts = users.map(({ name, uid }) =>
        request(`${server!.url}/v1/users/${uid}`, {
          method: 'PUT',
          headers: root,
          body: json({ role: 'cluster_member', password: `New-password-${name}` }),
        }).catch(() => undefined),
      );
      await new Promise((r) => setTimeout(r, afterMs));
      await server.stop('SIGKILL');
      await Promise.all(puts);
      server = await serve();
      for (const { name, uid } of users) {
        const { role } = (await request(`${server.url}/v1/users/${uid}`, { headers: root })).json;
        const isNew = role === 'cluster_member';
        // The role and the password went together: the password of the same state logs in, the other does not.
        expect(await logsIn(server, name, `New-password-${name}`), `${name} reads ${role}`).toBe(isNew);
        expect(await logsIn(server, name, `Old-password-${name}`), `${name} reads ${role}`).toBe(!isNew);
        seen[isNew ? 'new' : 'old']++;
      }
    }
    expect(seen.old + seen.new).toBe(4 * USERS);
  }, 180_000);
});
