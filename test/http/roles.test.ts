import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUILT_IN_ROLE_UIDS } from '../../src/access/built-in-roles.js';
import { BUILT_IN_ROLES } from '../../src/store/migrations/0002-roles-and-user-object.js';
import { call, login } from '../helpers/http.js';
import { decodeJwt, type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
let admin: string;
let manager: string;
beforeEach(async () => {
  t = await testTessera();
  await t.addUser('root', 'root-password', 'admin');
  await t.addUser('ivan', 'ivan-password-1', 'user_manager');
  admin = await login(t, 'root', 'root-password');
  manager = await login(t, 'ivan', 'ivan-password-1');
});
afterEach(() => t.close());

const BUILT_IN = [
  { uid: 1, name: 'Admin', management: 'admin' },
  { uid: 2, name: 'Cluster Member', management: 'cluster_member' },
  { uid: 3, name: 'Cluster Viewer', management: 'cluster_viewer' },
  { uid: 4, name: 'DB Member', management: 'db_member' },
  { uid: 5, name: 'DB Viewer', management: 'db_viewer' },
  { uid: 6, name: 'None', management: 'none' },
  { uid: 7, name: 'User Manager', management: 'user_manager' },
  { uid: 8, name: 'Token Verifier', management: 'token_verifier' },
];

describe('/v1/roles', () => {
  it('has one built-in role per management level from the first start, so role_uids resolve at once', async () => {
    const res = await call(t, 'GET', '/v1/roles', { auth: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(BUILT_IN);
    expect((await call(t, 'GET', '/v1/roles/3', { auth: manager })).body).toEqual(BUILT_IN[2]);
    expect((await call(t, 'GET', '/v1/roles/99', { auth: admin })).body.error_code).toBe('role_not_found');
  });

  it("creates, renames, changes and deletes a role; names are unique with their case, as the product's", async () => {
    const created = await call(t, 'POST', '/v1/roles', { auth: admin, body: { name: 'DBA', management: 'db_member' } });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ uid: expect.any(Number), name: 'DBA', management: 'db_member' });
    expect(created.body.uid).toBeGreaterThan(100);
    const uid = created.body.uid as number;
    const dup = await call(t, 'POST', '/v1/roles', { auth: admin, body: { name: 'DBA', management: 'none' } });
    expect([dup.status, dup.body.error_code]).toEqual([409, 'name_already_exists']);
    expect(
      (await call(t, 'POST', '/v1/roles', { auth: admin, body: { name: ' DBA ', management: 'none' } })).body
        .error_code,
    ).toBe('invalid_request'); // outer spaces: no name of its own
    const lower = await call(t, 'POST', '/v1/roles?dry_run=true', {
      auth: admin,
      body: { name: 'dba', management: 'none' },
    });
    expect([lower.status, lower.body]).toEqual([200, {}]);
    const renamed = await call(t, 'PUT', `/v1/roles/${uid}`, {
      auth: manager,
      body: { name: 'Database admins', management: 'cluster_member' },
    });
    expect(renamed.body).toEqual({ uid, name: 'Database admins', management: 'cluster_member' });
    expect((await call(t, 'PUT', `/v1/roles/${uid}`, { auth: admin, body: { name: 'Admin' } })).body.error_code).toBe(
      'name_already_exists',
    );
    expect((await call(t, 'DELETE', `/v1/roles/${uid}`, { auth: manager })).status).toBe(200);
    expect((await call(t, 'GET', `/v1/roles/${uid}`, { auth: admin })).status).toBe(404);
    expect((await call(t, 'DELETE', `/v1/roles/${uid}`, { auth: admin })).status).toBe(404);
  });

  it('refuses a name that looks like another role on screen, and takes names in one other script', async () => {
    for (const name of ['Admin\u200b', '\u202eAdmin', 'Аdmin' /* Cyrillic А */, 'Αdmin' /* Greek Α */]) {
      const res = await call(t, 'POST', '/v1/roles', { auth: admin, body: { name, management: 'admin' } });
      expect([res.status, res.body.error_code], JSON.stringify(name)).toEqual([400, 'invalid_request']);
    }
    const renamed = await call(t, 'PUT', '/v1/roles/1', { auth: admin, body: { name: 'Аdmin' } });
    expect(renamed.status).toBe(400);
    const cyrillic = await call(t, 'POST', '/v1/roles', {
      auth: admin,
      body: { name: 'Администраторы БД', management: 'db_member' },
    });
    expect(cyrillic.status, JSON.stringify(cyrillic.body)).toBe(200);
    expect((await call(t, 'GET', '/v1/roles', { auth: admin })).body.map((r: { name: string }) => r.name)).toEqual([
      ...BUILT_IN.map((r) => r.name),
      'Администраторы БД',
    ]);
  });

  it('validates with dry_run and changes nothing', async () => {
    const dry = await call(t, 'POST', '/v1/roles?dry_run=true', {
      auth: admin,
      body: { name: 'Ghost', management: 'db_viewer' },
    });
    expect([dry.status, dry.body]).toEqual([200, {}]);
    expect((await call(t, 'GET', '/v1/roles', { auth: admin })).body).toHaveLength(BUILT_IN.length);
    const dryDup = await call(t, 'POST', '/v1/roles?dry_run=true', {
      auth: admin,
      body: { name: 'Admin', management: 'db_viewer' },
    });
    expect(dryDup.body.error_code).toBe('name_already_exists');
    const { body: own } = await call(t, 'POST', '/v1/roles', {
      auth: admin,
      body: { name: 'Own', management: 'none' },
    });
    // Every form the product's docs write: bare, =1, =true.
    for (const form of ['dry_run', 'dry_run=1', 'dry_run=true']) {
      const dryPut = await call(t, 'PUT', `/v1/roles/${own.uid}?${form}`, { auth: admin, body: { name: 'Readers' } });
      expect(dryPut.status, form).toBe(200);
      const dryPost = await call(t, 'POST', `/v1/roles?${form}`, {
        auth: admin,
        body: { name: 'G2', management: 'none' },
      });
      expect([dryPost.status, dryPost.body], form).toEqual([200, {}]);
    }
    expect((await call(t, 'GET', `/v1/roles/${own.uid}`, { auth: admin })).body.name).toBe('Own');
    expect((await call(t, 'GET', '/v1/roles', { auth: admin })).body).toHaveLength(BUILT_IN.length + 1);
    const unknown = await call(t, 'PUT', `/v1/roles/${own.uid}?dryrun=1`, { auth: admin, body: { name: 'Readers' } });
    expect([unknown.status, unknown.body.error_code]).toEqual([400, 'invalid_request']);
    expect(unknown.body.message).toContain('unknown query parameter "dryrun"');
    await call(t, 'DELETE', `/v1/roles/${own.uid}`, { auth: admin });
  });

  it('refuses to delete a role in use (406 role_in_use)', async () => {
    const { body: role } = await call(t, 'POST', '/v1/roles', {
      auth: admin,
      body: { name: 'Readers', management: 'db_viewer' },
    });
    await call(t, 'POST', '/v1/users', {
      auth: admin,
      body: { name: 'vault', password: 'vault-password-1', role_uids: [role.uid] },
    });
    const res = await call(t, 'DELETE', `/v1/roles/${role.uid}`, { auth: admin });
    expect([res.status, res.body.error_code]).toEqual([406, 'role_in_use']);
    expect((await call(t, 'GET', `/v1/roles/${role.uid}`, { auth: admin })).status).toBe(200);
  });

  it('never deletes, renames or relevels a built-in role, used or not (406)', async () => {
    expect(BUILT_IN.map((r) => r.uid)).toEqual(BUILT_IN_ROLE_UIDS);
    expect(BUILT_IN_ROLES.map((r) => r.uid)).toEqual(BUILT_IN_ROLE_UIDS); // what the store made, the rule names
    for (const { uid, name } of BUILT_IN) {
      const res = await call(t, 'DELETE', `/v1/roles/${uid}`, { auth: admin });
      expect([res.status, res.body], name).toEqual([
        406,
        {
          error_code: 'delete_builtin_role_not_allowed',
          message: expect.stringContaining(`"${name}" is a built-in role`),
        },
      ]);
    }
    // A user_manager is refused the admin role first, as before; the others are refused as built-in.
    expect((await call(t, 'DELETE', '/v1/roles/1', { auth: manager })).body.error_code).toBe('unauthorized_action');
    expect((await call(t, 'DELETE', '/v1/roles/6', { auth: manager })).body.error_code).toBe(
      'delete_builtin_role_not_allowed',
    );
    expect((await call(t, 'GET', '/v1/roles', { auth: admin })).body).toEqual(BUILT_IN);
    // Their name and level stay: users, mappings and assertions name them by uid for that level.
    for (const [uid, body] of [
      [6, { management: 'user_manager' }],
      [5, { name: 'Administrators' }],
      [1, { management: 'none' }],
    ] as const) {
      for (const auth of [admin, manager]) {
        const res = await call(t, 'PUT', `/v1/roles/${uid}`, { auth, body });
        expect(res.status, JSON.stringify(body)).toBe(uid === 1 && auth === manager ? 403 : 406);
      }
    }
    const renamed = await call(t, 'PUT', '/v1/roles/6', { auth: admin, body: { name: 'Nobody' } });
    expect([renamed.status, renamed.body.error_code]).toEqual([406, 'update_builtin_role_not_allowed']);
    // Sent back as they are, they are no change.
    const same = await call(t, 'PUT', '/v1/roles/5', {
      auth: admin,
      body: { name: 'DB Viewer', management: 'db_viewer' },
    });
    expect([same.status, same.body]).toEqual([200, { uid: 5, name: 'DB Viewer', management: 'db_viewer' }]);
    await t.tessera.eventWriter.flush();
    expect((await call(t, 'GET', '/v1/logs?type=role_update', { auth: admin })).body).toEqual([]); // nor audited
    expect((await call(t, 'GET', '/v1/roles', { auth: admin })).body).toEqual(BUILT_IN);
  });

  it('keeps a user_manager away from admin: no role with admin management made, changed, deleted or given', async () => {
    const make = await call(t, 'POST', '/v1/roles', { auth: manager, body: { name: 'Root', management: 'admin' } });
    expect([make.status, make.body.error_code]).toEqual([403, 'unauthorized_action']);
    expect(
      (await call(t, 'PUT', '/v1/roles/4', { auth: manager, body: { management: 'admin' } })).body.error_code,
    ).toBe('unauthorized_action');
    expect((await call(t, 'PUT', '/v1/roles/1', { auth: manager, body: { name: 'Boss' } })).body.error_code).toBe(
      'unauthorized_action',
    );
    expect((await call(t, 'DELETE', '/v1/roles/1', { auth: manager })).body.error_code).toBe('unauthorized_action');
    const give = await call(t, 'POST', '/v1/users', {
      auth: manager,
      body: { name: 'sneaky', password: 'sneaky-password-1', role_uids: [1] },
    });
    expect([give.status, give.body.error_code]).toEqual([403, 'unauthorized_action']);
    expect(await t.tessera.users.findByUsername('sneaky')).toBeUndefined();
  });

  it('never loses the last admin through a role (406 change_last_admin_role_not_allowed)', async () => {
    // Make the only admin an admin through a role of its own alone (nobody changes its own roles: another admin does).
    const { body: admins } = await call(t, 'POST', '/v1/roles', {
      auth: admin,
      body: { name: 'Admins', management: 'admin' },
    });
    await t.addUser('other', 'other-password', 'admin');
    const other = await login(t, 'other', 'other-password');
    const root = (await t.tessera.users.findByUsername('root'))!;
    expect(
      (await call(t, 'PUT', `/v1/users/${root.uid}`, { auth: other, body: { role_uids: [admins.uid] } })).status,
    ).toBe(200);
    const otherUid = (await t.tessera.users.findByUsername('other'))!.uid;
    // Its new roles ended root's tokens: it logs in again.
    expect(
      (await call(t, 'DELETE', `/v1/users/${otherUid}`, { auth: await login(t, 'root', 'root-password') })).status,
    ).toBe(200);
    const res = await call(t, 'PUT', `/v1/roles/${admins.uid}`, {
      auth: await login(t, 'root', 'root-password'),
      body: { management: 'none' },
    });
    expect([res.status, res.body.error_code]).toEqual([406, 'change_last_admin_role_not_allowed']);
  });
});

describe('users with roles', () => {
  it('gives a user the highest level of its roles; the token carries every level', async () => {
    // role beside role_uids reads as it is read back: their highest level, else refused.
    const wrong = await call(t, 'POST', '/v1/users', {
      auth: admin,
      body: { name: 'pat', password: 'pat-password-1', role: 'db_viewer', role_uids: [7, 3] },
    });
    expect([wrong.status, wrong.body.error_code]).toEqual([400, 'invalid_request']);
    expect(wrong.body.message).toContain('role_uids give "user_manager"');
    const res = await call(t, 'POST', '/v1/users', {
      auth: admin,
      body: { name: 'pat', password: 'pat-password-1', role: 'user_manager', role_uids: [7, 3, 5] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'pat', email: '', role: 'user_manager', role_uids: [3, 5, 7] });
    const token = await login(t, 'pat', 'pat-password-1');
    expect(decodeJwt(token.slice(4)).payload.roles).toEqual(['user_manager', 'cluster_viewer', 'db_viewer']);
    // Rights are the union: user_manager lists users, cluster_viewer reads the cluster.
    expect((await call(t, 'GET', '/v1/users', { auth: token })).status).toBe(200);
    expect((await call(t, 'GET', '/v1/cluster', { auth: token })).status).toBe(200);
    expect((await call(t, 'PUT', '/v1/cluster', { auth: token, body: {} })).status).toBe(403);
  });

  it('refuses a role uid that does not exist, naming it', async () => {
    const res = await call(t, 'POST', '/v1/users', {
      auth: admin,
      body: { name: 'pat', password: 'pat-password-1', role_uids: [42] },
    });
    expect([res.status, res.body.error_code]).toEqual([400, 'invalid_request']);
    expect(res.body.message).toContain('42');
  });

  it("ends the tokens of a role's holders when its management changes, and they log in with the new rights", async () => {
    const created = await call(t, 'POST', '/v1/roles', {
      auth: admin,
      body: { name: 'Ops', management: 'user_manager' },
    });
    const roleUid = created.body.uid as number;
    const { body: user } = await call(t, 'POST', '/v1/users', {
      auth: admin,
      body: { name: 'opsie', password: 'opsie-password-1', role_uids: [roleUid] },
    });
    const token = await login(t, 'opsie', 'opsie-password-1');
    expect((await call(t, 'GET', '/v1/users', { auth: token })).status).toBe(200);
    await call(t, 'PUT', `/v1/roles/${roleUid}`, { auth: admin, body: { management: 'db_viewer' } });
    expect((await call(t, 'GET', `/v1/users/${user.uid}`, { auth: token })).status).toBe(401);
    const after = await login(t, 'opsie', 'opsie-password-1');
    expect((await call(t, 'GET', '/v1/users', { auth: after })).status).toBe(403);
    expect((await call(t, 'GET', `/v1/users/${user.uid}`, { auth: after })).body.role).toBe('db_viewer');
  });

  it("changes role_uids on update; taking them away ends the user's tokens", async () => {
    const { body: user } = await call(t, 'POST', '/v1/users', {
      auth: admin,
      body: { name: 'rob', password: 'rob-password-1', role_uids: [4] },
    });
    const token = await login(t, 'rob', 'rob-password-1');
    const res = await call(t, 'PUT', `/v1/users/${user.uid}`, { auth: admin, body: { role_uids: [5] } });
    expect(res.body).toMatchObject({ role: 'db_viewer', role_uids: [5] });
    expect((await call(t, 'GET', `/v1/users/${user.uid}`, { auth: token })).status).toBe(401);
  });

  it('makes a role named "admin" beside the built-in "Admin" (what clients of the product do), and one with the uid asked for (8.0)', async () => {
    const named = await call(t, 'POST', '/v1/roles', { auth: admin, body: { name: 'admin', management: 'admin' } });
    expect([named.status, named.body.name]).toEqual([200, 'admin']);
    const chosen = await call(t, 'POST', '/v1/roles', {
      auth: admin,
      body: { uid: 4242, name: 'Chosen', management: 'db_viewer' },
    });
    expect(chosen.body).toEqual({ uid: 4242, name: 'Chosen', management: 'db_viewer' });
    const taken = await call(t, 'POST', '/v1/roles', {
      auth: admin,
      body: { uid: 4242, name: 'Other', management: 'db_viewer' },
    });
    expect([taken.status, taken.body.error_code]).toEqual([409, 'uid_already_exists']);
    // The next role made without a uid takes a free one.
    const next = await call(t, 'POST', '/v1/roles', { auth: admin, body: { name: 'Next', management: 'db_viewer' } });
    expect(next.status).toBe(200);
    expect(next.body.uid).not.toBe(4242);
    for (const uid of [named.body.uid, 4242, next.body.uid])
      expect((await call(t, 'DELETE', `/v1/roles/${uid}`, { auth: admin })).status).toBe(200);
    // 1 to 100 are kept for built-in roles; a uid near 2^31 would end the sequence for every later role.
    for (const uid of [50, 2_147_483_647])
      expect(
        (await call(t, 'POST', '/v1/roles', { auth: admin, body: { uid, name: `U${uid}`, management: 'none' } })).body
          .error_code,
      ).toBe('invalid_request');
  });
});
