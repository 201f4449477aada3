import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importUsers } from '../../src/users/user-import.js';
import { createIntrospector, createVerifier, hasRoleOn, rolesOn } from '../../src/verify/index.js';
import { call, login } from '../helpers/http.js';
import { storeSnapshot } from '../helpers/store-snapshot.js';
import { decodeJwt, type TestTessera, testTessera } from '../helpers/test-tessera.js';

/*
 * Database-scoped roles (the product's role object, 8.2): `resources` limits a db_member or
 * db_viewer role to some databases. Tessera keeps them and carries them in its tokens, for the
 * service that owns the databases to enforce.
 */

let t: TestTessera;
let admin: string;
beforeEach(async () => {
  t = await testTessera();
  await t.addUser('root', 'root-password', 'admin');
  admin = await login(t, 'root', 'root-password');
});
afterEach(() => t.close());

const db = (...uids: string[]) => [{ type: 'db', uids }];
const newRole = async (name: string, management: string, resources?: unknown) =>
  call(t, 'POST', '/v1/roles', {
    auth: admin,
    body: { name, management, ...(resources !== undefined && { resources }) },
  });
const newUser = async (name: string, roleUids: number[]) =>
  (
    await call(t, 'POST', '/v1/users', {
      auth: admin,
      body: { name, password: `${name}-password-1`, role_uids: roleUids },
    })
  ).body.uid as number;
const claimsOf = (token: string) => decodeJwt(token.replace(/^JWT /, '')).payload;

describe("a role's resources", () => {
  it('are made, read, changed and cleared as the product writes them (uids as strings, in numeric order)', async () => {
    const made = await newRole('Readers', 'db_viewer', db('10', '2', '1'));
    expect([made.status, made.body]).toEqual([
      200,
      { uid: expect.any(Number), name: 'Readers', management: 'db_viewer', resources: db('1', '2', '10') },
    ]);
    const uid = made.body.uid;
    expect((await call(t, 'GET', `/v1/roles/${uid}`, { auth: admin })).body).toEqual(made.body);
    expect((await call(t, 'GET', '/v1/roles', { auth: admin })).body.at(-1)).toEqual(made.body);
    const writer = await call(t, 'PUT', `/v1/roles/${uid}`, {
      auth: admin,
      body: { management: 'db_member', resources: db('3') },
    });
    expect(writer.body).toEqual({ uid, name: 'Readers', management: 'db_member', resources: db('3') });
    // [] (or leaving them out when made): every database, and the answer has none.
    const cleared = await call(t, 'PUT', `/v1/roles/${uid}`, { auth: admin, body: { resources: [] } });
    expect(cleared.body).toEqual({ uid, name: 'Readers', management: 'db_member' });
    // Unlimited, a role may take another level; limited, only db_member and db_viewer.
    expect(
      (await call(t, 'PUT', `/v1/roles/${uid}`, { auth: admin, body: { management: 'cluster_viewer' } })).status,
    ).toBe(200);
    expect((await newRole('Plain', 'db_member', [])).body).toEqual({
      uid: expect.any(Number),
      name: 'Plain',
      management: 'db_member',
    });
    await t.tessera.eventWriter.flush();
    const updates = (await call(t, 'GET', '/v1/logs?type=role_update', { auth: admin })).body;
    expect(updates.map((e: { changes: string[] }) => e.changes)).toEqual([
      ['management', 'resources'],
      ['resources'],
      ['management'],
    ]);
  });

  it('refuses what the product does not allow with a 400 naming it, and writes nothing', async () => {
    const { body: readers } = await newRole('Readers', 'db_viewer', db('1'));
    const before = await storeSnapshot(t);
    const refused: [string, 'POST' | 'PUT', unknown, number, RegExp | string][] = [
      [
        '/v1/roles',
        'POST',
        { name: 'Ops', management: 'cluster_member', resources: db('1') },
        400,
        /management "cluster_member" takes none/,
      ],
      [
        '/v1/roles',
        'POST',
        { name: 'Root', management: 'admin', resources: db('1') },
        400,
        /management "admin" takes none/,
      ],
      [
        '/v1/roles',
        'POST',
        { name: 'X', management: 'db_viewer', resources: [...db('1'), ...db('2')] },
        400,
        'resources: type "db" is given twice; give each type once, with all its uids',
      ],
      [
        '/v1/roles',
        'POST',
        { name: 'X', management: 'db_viewer', resources: db('1', '1') },
        400,
        'resources.0.uids holds the same value twice',
      ],
      [
        '/v1/roles',
        'POST',
        { name: 'X', management: 'db_viewer', resources: db('one') },
        400,
        /^resources\.0\.uids\.0 must be a database uid/,
      ],
      [
        '/v1/roles',
        'POST',
        { name: 'X', management: 'db_viewer', resources: db('-1') },
        400,
        /^resources\.0\.uids\.0 must be a database uid/,
      ],
      [
        '/v1/roles',
        'POST',
        { name: 'X', management: 'db_viewer', resources: db() },
        400,
        'resources.0.uids must not be empty',
      ],
      [
        '/v1/roles',
        'POST',
        {
          name: 'X',
          management: 'db_viewer',
          resources: db(...Array.from({ length: 1025 }, (_, i) => String(i + 1))),
        },
        400,
        'resources.0.uids must have at most 1024 items',
      ],
      [
        '/v1/roles',
        'POST',
        { name: 'X', management: 'db_viewer', resources: [{ type: 'shard', uids: ['1'] }] },
        400,
        'resources.0.type must be one of db',
      ],
      [
        '/v1/roles',
        'POST',
        { name: 'X', management: 'db_viewer', resources: { type: 'db', uids: ['1'] } },
        400,
        'resources must be a JSON array',
      ],
      [
        '/v1/roles',
        'POST',
        { name: 'X', management: 'db_viewer', resources: [{ type: 'db', uids: ['1'], acl: 'x' }] },
        400,
        /unknown field "resources\.0\.acl"/,
      ],
      // The role keeps its resources when its level changes: they must fit the new one.
      [
        `/v1/roles/${readers.uid}`,
        'PUT',
        { management: 'cluster_viewer' },
        400,
        /send "resources": \[\] to clear them/,
      ],
      // The built-in roles keep their name, level and resources.
      ['/v1/roles/5', 'PUT', { resources: db('1') }, 406, /its name, management and resources do not change/],
      ['/v1/roles/4', 'PUT', { name: 'DB Member', management: 'db_member', resources: db('1') }, 406, /built-in role/],
    ];
    for (const [path, method, body, status, message] of refused) {
      const res = await call(t, method, path, { auth: admin, body });
      expect(res.status, JSON.stringify(body)).toBe(status);
      if (typeof message === 'string') expect(res.body.message).toBe(message);
      else expect(res.body.message).toMatch(message);
    }
    expect(await storeSnapshot(t)).toEqual(before);
  });
});

describe('the tokens of a limited role’s holders', () => {
  it('carry the resources of their roles merged by level, absent when none limits them', async () => {
    const [member1, viewer23, viewer34, viewerAll] = [
      (await newRole('Member 1', 'db_member', db('1'))).body.uid,
      (await newRole('Viewer 2 3', 'db_viewer', db('3', '2'))).body.uid,
      (await newRole('Viewer 3 4', 'db_viewer', db('4', '3'))).body.uid,
      5, // the built-in DB Viewer: every database
    ];
    await newUser('mixed', [member1, viewer23, viewer34]);
    await newUser('wide', [member1, viewer23, viewerAll]);
    await newUser('plain', [4, 3]);
    const mixed = claimsOf(await login(t, 'mixed', 'mixed-password-1'));
    expect([mixed.roles, mixed.resources]).toEqual([
      ['db_member', 'db_viewer'],
      [
        { management: 'db_member', type: 'db', uids: ['1'] },
        { management: 'db_viewer', type: 'db', uids: ['2', '3', '4'] },
      ],
    ]);
    // One db_viewer role without a limit: db_viewer on every database, so no entry limits it.
    const wide = claimsOf(await login(t, 'wide', 'wide-password-1'));
    expect(wide.resources).toEqual([{ management: 'db_member', type: 'db', uids: ['1'] }]);
    const plain = claimsOf(await login(t, 'plain', 'plain-password-1'));
    expect('resources' in plain).toBe(false);
    // A refreshed token carries them too.
    const refreshed = await call(t, 'POST', '/v1/users/refresh_jwt', {
      auth: await login(t, 'mixed', 'mixed-password-1'),
    });
    expect(claimsOf(refreshed.body.access_token).resources).toEqual(mixed.resources);
  });

  it("end when the role's resources change (as when its management does), and the next login carries the new ones", async () => {
    const { body: role } = await newRole('Readers', 'db_viewer', db('1'));
    const uid = await newUser('reader', [role.uid]);
    const { body: other } = await newRole('Others', 'db_viewer');
    const bystander = await newUser('bystander', [other.uid]);
    const token = await login(t, 'reader', 'reader-password-1');
    const untouched = await login(t, 'bystander', 'bystander-password-1');
    // Sent as they are: no change, the token stands.
    await call(t, 'PUT', `/v1/roles/${role.uid}`, { auth: admin, body: { resources: db('1') } });
    expect((await call(t, 'GET', `/v1/users/${uid}`, { auth: token })).status).toBe(200);
    await call(t, 'PUT', `/v1/roles/${role.uid}`, { auth: admin, body: { resources: db('1', '2') } });
    expect((await call(t, 'GET', `/v1/users/${uid}`, { auth: token })).status).toBe(401);
    expect((await call(t, 'GET', `/v1/users/${bystander}`, { auth: untouched })).status).toBe(200);
    const after = await login(t, 'reader', 'reader-password-1');
    expect(claimsOf(after).resources).toEqual([{ management: 'db_viewer', type: 'db', uids: ['1', '2'] }]);
    // Cleared: every database — the limit's tokens end too.
    await call(t, 'PUT', `/v1/roles/${role.uid}`, { auth: admin, body: { resources: [] } });
    expect((await call(t, 'GET', `/v1/users/${uid}`, { auth: after })).status).toBe(401);
    expect('resources' in claimsOf(await login(t, 'reader', 'reader-password-1'))).toBe(false);
  });

  it('reach a service through the verifier kit, typed, and through introspection; rolesOn never mixes levels', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const served = await testTessera({ publicUrl: url, tls: { enabled: false } });
    try {
      await served.addUser('root', 'root-password', 'admin');
      await served.addUser('svc', 'service-password', 'token_verifier');
      await served.app.listen({ port, host: '127.0.0.1' });
      const root = await login(served, 'root', 'root-password');
      const make = async (name: string, management: string, resources: unknown) =>
        (await call(served, 'POST', '/v1/roles', { auth: root, body: { name, management, resources } })).body.uid;
      const roleUids = [await make('Member 1', 'db_member', db('1')), await make('Viewer 2', 'db_viewer', db('2'))];
      await call(served, 'POST', '/v1/users', {
        auth: root,
        body: { name: 'dana', password: 'dana-password-1', role_uids: roleUids },
      });
      const token = (await login(served, 'dana', 'dana-password-1')).replace(/^JWT /, '');
      const expected = [
        { management: 'db_member', type: 'db', uids: ['1'] },
        { management: 'db_viewer', type: 'db', uids: ['2'] },
      ];
      const verifier = createVerifier({ issuer: url, audience: url });
      const introspector = createIntrospector({
        issuer: url,
        credentials: { username: 'svc', password: 'service-password' },
      });
      try {
        for (const kit of [verifier, introspector]) {
          const claims = await kit.verify(token);
          expect(claims.resources).toEqual(expected);
          expect(rolesOn(claims, { type: 'db', uid: '1' })).toEqual(['db_member']);
          expect(rolesOn(claims, { type: 'db', uid: '2' })).toEqual(['db_viewer']); // never db_member on 2
          expect(rolesOn(claims, { type: 'db', uid: '3' })).toEqual([]);
          expect(hasRoleOn(claims, { type: 'db', uid: '2' }, ['db_member'])).toBe(false);
        }
      } finally {
        verifier.close();
        introspector.close();
      }
      // Without limits every level applies to every database.
      expect(rolesOn({ roles: ['cluster_viewer', 'db_viewer'] }, { type: 'db', uid: '9' })).toEqual([
        'cluster_viewer',
        'db_viewer',
      ]);
    } finally {
      await served.close();
    }
  });
});

describe('moving roles in from a cluster of the product', () => {
  it('keeps their resources, and refuses a role of the same name limited otherwise (its users too)', async () => {
    await newRole('Readers', 'db_viewer', db('1'));
    const target = { userCreation: t.tessera.userCreation, roles: t.tessera.roles, users: t.tessera.users };
    const lines = await importUsers(
      target,
      {
        roles: [
          { uid: 101, name: 'Readers', management: 'db_viewer', resources: db('1', '2') },
          { uid: 102, name: 'Writers', management: 'db_member', resources: db('7') },
          { uid: 103, name: 'Bad', management: 'cluster_member', resources: db('7') },
        ],
        users: [],
      },
      { dryRun: false, clusterName: 'old' },
    );
    expect(lines.map((l) => [l.who, l.outcome])).toEqual([
      ['Readers', 'refused'],
      ['Writers', 'created'],
      ['Bad', 'refused'],
    ]);
    const writers = (await t.tessera.roles.list()).find((r) => r.name === 'Writers');
    expect(writers?.resources).toEqual(db('7'));
  });
});

/** A port nothing listens on now (the server's public URL must be known before it starts). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
