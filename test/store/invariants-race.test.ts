import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_CONTEXT } from '../../src/audit/audit-log.js';
import { call } from '../helpers/http.js';
import { freshPostgres, freshRedisPrefix, REDIS_URL } from '../helpers/services.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

const ROUNDS = 20;

/**
 * Rules over many users that two nodes must not break by doing the conflicting thing at
 * once (PostgreSQL, two nodes, requests started together, many times): at least one admin,
 * a name or email that is one user's in either field, a role in use not deleted.
 */
describe('invariants under concurrent requests on two nodes (PostgreSQL)', () => {
  let pg: { url: string; drop(): Promise<void> };
  let a: TestTessera;
  let b: TestTessera;
  const pw = (name: string) => `${name}-password-1`;
  const as = (t: TestTessera, name: string) => t.basic(name, pw(name));
  const uidOf = async (name: string) => (await a.tessera.users.findByUsername(name))!.uid;

  beforeAll(async () => {
    pg = await freshPostgres();
    const shared = { databaseUrl: pg.url, redisUrl: REDIS_URL, redisKeyPrefix: freshRedisPrefix(), authRateLimit: 0 };
    a = await testTessera(shared);
    b = await testTessera(shared);
    for (const name of ['one', 'two']) await a.addUser(name, pw(name), 'admin');
    for (const name of ['u1', 'u2']) await a.addUser(name, pw(name), 'db_viewer');
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await pg?.drop();
  });

  /** Both admins again, through the store (as the CLI would), before a round. */
  async function bothAdmins(): Promise<void> {
    for (const name of ['one', 'two']) {
      const user = await a.tessera.users.findByUsername(name);
      if (!user) await a.addUser(name, pw(name), 'admin');
      else if (user.roleUids.join() !== '1')
        await a.tessera.userUpdate.update(null, user.uid, { role_uids: [1] }, CLI_CONTEXT);
    }
  }

  it(`keeps an admin when the last two demote each other at once, ${ROUNDS} times`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      await bothAdmins();
      const [one, two] = [await uidOf('one'), await uidOf('two')];
      const [x, y] = await Promise.all([
        call(a, 'PUT', `/v1/users/${two}`, { auth: as(a, 'one'), body: { role: 'db_viewer' } }),
        call(b, 'PUT', `/v1/users/${one}`, { auth: as(b, 'two'), body: { role: 'db_viewer' } }),
      ]);
      // One demotion stands; the other is refused as the last admin's (or finds its caller no admin: 401, 403).
      expect(
        [x.status, y.status].filter((s) => s === 200),
        `round ${round}: ${x.status} ${y.status}`,
      ).toHaveLength(1);
      expect(await a.tessera.users.countAdmins()).toBe(1);
    }
  });

  it(`keeps an admin when the last two delete each other at once, ${ROUNDS} times`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      await bothAdmins();
      const [one, two] = [await uidOf('one'), await uidOf('two')];
      const [x, y] = await Promise.all([
        call(a, 'DELETE', `/v1/users/${two}`, { auth: as(a, 'one') }),
        call(b, 'DELETE', `/v1/users/${one}`, { auth: as(b, 'two') }),
      ]);
      // One deletion stands; the other is refused as the last admin's (or finds its caller gone: 401).
      expect(
        [x.status, y.status].filter((s) => s === 200),
        `round ${round}: ${x.status} ${y.status}`,
      ).toHaveLength(1);
      expect(await a.tessera.users.countAdmins()).toBe(1);
    }
  });

  it(`keeps an admin when the two roles the last admins hold lose their admin management at once, ${ROUNDS} times`, async () => {
    const role = async (name: string) =>
      (await call(a, 'POST', '/v1/roles', { auth: as(a, 'one'), body: { name, management: 'admin' } })).body
        .uid as number;
    await bothAdmins();
    const [r1, r2] = [await role('Admins One'), await role('Admins Two')];
    for (let round = 0; round < ROUNDS; round++) {
      await a.tessera.roles.update(
        { uid: 0, username: 'operator', rights: ['admin'] },
        r1,
        { management: 'admin' },
        CLI_CONTEXT,
      );
      await a.tessera.roles.update(
        { uid: 0, username: 'operator', rights: ['admin'] },
        r2,
        { management: 'admin' },
        CLI_CONTEXT,
      );
      await a.tessera.userUpdate.update(null, await uidOf('one'), { role_uids: [r1] }, CLI_CONTEXT);
      await a.tessera.userUpdate.update(null, await uidOf('two'), { role_uids: [r2] }, CLI_CONTEXT);
      const [x, y] = await Promise.all([
        call(a, 'PUT', `/v1/roles/${r1}`, { auth: as(a, 'one'), body: { management: 'db_viewer' } }),
        call(b, 'PUT', `/v1/roles/${r2}`, { auth: as(b, 'two'), body: { management: 'db_viewer' } }),
      ]);
      expect(
        [x.status, y.status].filter((s) => s === 200),
        `round ${round}: ${x.status} ${y.status}`,
      ).toHaveLength(1);
      expect(await a.tessera.users.countAdmins()).toBe(1);
      // Both admins again, directly (their roles' management), for the next round.
      await a.tessera.userUpdate.update(null, await uidOf('one'), { role_uids: [1] }, CLI_CONTEXT);
    }
  });

  it(`gives a login to one user when one takes it as a name and another as an email at once, ${ROUNDS} times`, async () => {
    await bothAdmins();
    for (let round = 0; round < ROUNDS; round++) {
      const login = `shared-${round}@example.com`;
      const [x, y] = await Promise.all([
        call(a, 'PUT', `/v1/users/${await uidOf('u1')}`, { auth: as(a, 'one'), body: { name: login } }),
        call(b, 'PUT', `/v1/users/${await uidOf('u2')}`, { auth: as(b, 'two'), body: { email: login } }),
      ]);
      expect([x.status, y.status].sort(), `round ${round}`).toEqual([200, 409]);
      // Put u1's name back for the next round's lookups.
      if (x.status === 200)
        await a.tessera.userUpdate.update(
          null,
          await a.tessera.users.findByUsername(login).then((u) => u!.uid),
          { name: 'u1' },
          CLI_CONTEXT,
        );
    }
  });
});
