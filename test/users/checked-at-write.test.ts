import { AsyncLocalStorage } from 'node:async_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_CONTEXT } from '../../src/audit/audit-log.js';
import { UnauthorizedActionError } from '../../src/errors.js';
import { KyselyRoleStore } from '../../src/roles/kysely-role-store.js';
import { call } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
afterEach(() => t.close());

/** Another request's async context (no unit of work of this one's): taken as the file loads. */
const elsewhere = AsyncLocalStorage.snapshot();

/**
 * Who may change whom is asked again of the user (or role) as the store has it, in the
 * transaction that writes: a check made before the password hashing could otherwise let a
 * user_manager write over an admin made meanwhile (on another node: here, between the check
 * and the write, deterministically).
 */
describe('the rule about whom, checked again where the change is written', () => {
  async function promotedWhileHashing(request: (y: number) => Promise<{ status: number; body: any }>) {
    t = await testTessera();
    await t.addUser('root', 'root-password', 'admin');
    await t.addUser('mgr', 'mgr-password-1', 'user_manager');
    const y = await t.addUser('y', 'y-password-1', 'db_viewer');
    const hasher = t.tessera.hasher;
    const hash = hasher.hash.bind(hasher);
    let promoted = false;
    hasher.hash = async (password: string) => {
      if (!promoted) {
        promoted = true; // an admin makes y an admin while the manager's request hashes: another request's change
        await elsewhere(() => t.tessera.userUpdate.update(null, y, { role: 'admin' }, CLI_CONTEXT));
      }
      return hash(password);
    };
    const res = await request(y);
    expect(promoted).toBe(true);
    return { res, y };
  }

  it("refuses a user_manager's password for a user who became an admin meanwhile, and keeps the admin's password", async () => {
    const { res, y } = await promotedWhileHashing((uid) =>
      call(t, 'PUT', `/v1/users/${uid}`, {
        auth: t.basic('mgr', 'mgr-password-1'),
        body: { password: 'mgr-chosen-1' },
      }),
    );
    expect([res.status, res.body.error_code]).toEqual([403, 'unauthorized_action']);
    expect((await t.tessera.users.getByUid(y))!.rights).toContain('admin');
    expect(
      (await call(t, 'POST', '/v1/users/authorize', { body: { username: 'y', password: 'mgr-chosen-1' } })).status,
    ).toBe(401);
    expect(
      (await call(t, 'POST', '/v1/users/authorize', { body: { username: 'y', password: 'y-password-1' } })).status,
    ).toBe(200);
  });

  it("refuses a user_manager's deletion of a user who became an admin meanwhile", async () => {
    t = await testTessera();
    await t.addUser('root', 'root-password', 'admin');
    const y = await t.addUser('y', 'y-password-1', 'db_viewer');
    const mgr = {
      uid: await t.addUser('mgr', 'mgr-password-1', 'user_manager'),
      username: 'mgr',
      rights: ['user_manager' as const],
    };
    const users = t.tessera.users;
    const getByUid = users.getByUid.bind(users);
    users.getByUid = async (uid: number) => {
      const read = await getByUid(uid); // y as the manager's request reads it, before an admin promotes it
      users.getByUid = getByUid;
      await t.tessera.userUpdate.update(null, y, { role: 'admin' }, CLI_CONTEXT);
      return read;
    };
    await expect(t.tessera.userDeletion.delete(mgr, y, CLI_CONTEXT)).rejects.toThrow(UnauthorizedActionError);
    expect(await users.getByUid(y)).toBeDefined();
  });

  it('refuses a change of a role that became an admin role meanwhile, to whom may not grant admin', async () => {
    t = await testTessera();
    const roles = new KyselyRoleStore(t.tessera.db);
    const role = await roles.create({ name: 'ops', management: 'db_viewer' });
    const mayChange = (r: { management: string }) => {
      if (r.management === 'admin') throw new UnauthorizedActionError('Only an admin may grant the admin role');
    };
    await roles.update(role.uid, { management: 'admin' }); // an admin, meanwhile
    await expect(roles.update(role.uid, { name: 'ops-team' }, mayChange)).rejects.toThrow(UnauthorizedActionError);
    await expect(roles.delete(role.uid, mayChange)).rejects.toThrow(UnauthorizedActionError);
    expect(await roles.get(role.uid)).toEqual({ ...role, management: 'admin' });
  });
});
