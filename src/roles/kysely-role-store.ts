import { PostgresAdapter, sql, type Transaction } from 'kysely';
import { isRole } from '../access/management.js';
import { type ResourceScope, sameScopes } from '../access/resource-scopes.js';
import { LastAdminError, RoleInUseError, RoleNotFoundError, UserAlreadyExistsError } from '../errors.js';
import type { Db } from '../store/database.js';
import type { Database } from '../store/schema.js';
import { serialized } from '../store/serialized.js';
import { countAdmins } from '../users/kysely-user-store.js';
import { roleNameKey } from '../users/username.js';
import type { Role } from './role.js';
import type { RoleChanges, RoleGuard, RoleStore } from './role-store.js';

const COLUMNS = ['uid', 'name', 'management', 'resources', 'mfa_required'] as const;

const toRole = (row: {
  uid: number;
  name: string;
  management: string;
  resources: string | null;
  mfa_required: number;
}): Role => ({
  uid: row.uid,
  name: row.name,
  management: isRole(row.management) ? row.management : 'none',
  resources: row.resources === null ? [] : (JSON.parse(row.resources) as ResourceScope[]),
  mfaRequired: Number(row.mfa_required) === 1,
});

/** What the column holds: null for none. */
const resourcesColumn = (scopes: readonly ResourceScope[]) => (scopes.length === 0 ? null : JSON.stringify(scopes));

/** Roles over any Kysely dialect. */
export class KyselyRoleStore implements RoleStore {
  constructor(private readonly db: Db) {}

  async list(): Promise<Role[]> {
    return (await this.db.selectFrom('roles').select(COLUMNS).orderBy('uid').execute()).map(toRole);
  }

  async get(uid: number): Promise<Role | undefined> {
    const row = await this.db.selectFrom('roles').select(COLUMNS).where('uid', '=', uid).executeTakeFirst();
    return row && toRole(row);
  }

  async create(role: {
    name: string;
    management: string;
    uid?: number;
    resources?: readonly ResourceScope[];
    mfaRequired?: boolean;
  }): Promise<Role> {
    const row = await this.db
      .insertInto('roles')
      .values({
        ...(role.uid !== undefined && { uid: role.uid }),
        name: role.name,
        name_key: roleNameKey(role.name),
        management: role.management,
        resources: resourcesColumn(role.resources ?? []),
        mfa_required: role.mfaRequired ? 1 : 0,
      })
      .onConflict((oc) => oc.doNothing())
      .returning(COLUMNS)
      .executeTakeFirst();
    if (!row) {
      if (role.uid !== undefined && (await this.get(role.uid)))
        throw new UserAlreadyExistsError('uid_already_exists', `A role with uid ${role.uid} already exists`);
      throw new UserAlreadyExistsError('name_already_exists', 'A role with this name already exists');
    }
    // A uid given by hand: PostgreSQL's sequence moves past it, so that the next role made without one does not collide.
    if (role.uid !== undefined && this.db.getExecutor().adapter instanceof PostgresAdapter) {
      // Never backwards: another node may have taken a number meanwhile.
      await sql`select setval(pg_get_serial_sequence('roles', 'uid'), greatest((select max(uid) from roles), coalesce(pg_sequence_last_value(pg_get_serial_sequence('roles', 'uid')::regclass), 1)))`.execute(
        this.db,
      );
    }
    return toRole(row);
  }

  async update(uid: number, changes: RoleChanges, guard?: RoleGuard): Promise<boolean> {
    const set = {
      ...(changes.name !== undefined && { name: changes.name, name_key: roleNameKey(changes.name) }),
      ...(changes.management !== undefined && { management: changes.management }),
      ...(changes.resources !== undefined && { resources: resourcesColumn(changes.resources) }),
      ...(changes.mfaRequired !== undefined && { mfa_required: changes.mfaRequired ? 1 : 0 }),
    };
    if (Object.keys(set).length === 0) return false;
    try {
      // A new management of a role its holders are admins through must leave the cluster an admin.
      return await serialized(this.db, async (trx) => {
        const current = await this.guarded(trx, uid, guard);
        const admins = await countAdmins(trx);
        await trx.updateTable('roles').set(set).where('uid', '=', uid).execute();
        if (admins > 0 && (await countAdmins(trx)) === 0)
          throw new LastAdminError('change_last_admin_role_not_allowed');
        return (
          (changes.management !== undefined && changes.management !== current.management) ||
          (changes.resources !== undefined && !sameScopes(changes.resources, current.resources))
        );
      });
    } catch (err) {
      if (/unique|duplicate/i.test(String((err as Error).message))) {
        throw new UserAlreadyExistsError('name_already_exists', 'A role with this name already exists');
      }
      throw err;
    }
  }

  async delete(uid: number, guard?: RoleGuard, dryRun = false): Promise<number[]> {
    return serialized(this.db, async (trx) => {
      await this.guarded(trx, uid, guard);
      // In use: checked where it is given (a user's roles, a mapping), so that none is given it meanwhile.
      const holders = await this.holders(uid, trx);
      if (holders > 0) throw new RoleInUseError(holders);
      const mappings = (await trx.selectFrom('ldap_mappings').select('role_uids').execute()).filter((m) =>
        (JSON.parse(m.role_uids) as number[]).includes(uid),
      ).length;
      if (mappings > 0) throw new RoleInUseError(mappings, 'LDAP mapping');
      if (dryRun) return [];
      // Directory users hold a role only until their next login (their groups decide): they let go of it here.
      const held = await trx.deleteFrom('user_roles').where('role_uid', '=', uid).returning('uid').execute();
      await trx.deleteFrom('roles').where('uid', '=', uid).execute();
      return held.map((r) => r.uid);
    });
  }

  /** The role as the transaction sees it, which the guard lets this change; RoleNotFoundError when it is gone. */
  private async guarded(trx: Transaction<Database>, uid: number, guard?: RoleGuard): Promise<Role> {
    const row = await trx.selectFrom('roles').select(COLUMNS).where('uid', '=', uid).executeTakeFirst();
    if (!row) throw new RoleNotFoundError();
    const role = toRole(row);
    guard?.(role);
    return role;
  }

  /** Local users holding the role (a directory user's roles come from its groups, through mappings). */
  async holders(uid: number, db: Db | Transaction<Database> = this.db): Promise<number> {
    const row = await db
      .selectFrom('user_roles')
      .innerJoin('users', 'users.uid', 'user_roles.uid')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_roles.role_uid', '=', uid)
      .where('users.realm', '=', 'local')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async nameTaken(name: string, exceptUid?: number): Promise<boolean> {
    let query = this.db.selectFrom('roles').select('uid').where('name_key', '=', roleNameKey(name));
    if (exceptUid !== undefined) query = query.where('uid', '!=', exceptUid);
    return (await query.executeTakeFirst()) !== undefined;
  }
}
