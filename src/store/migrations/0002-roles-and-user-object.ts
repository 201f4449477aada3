import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from './dialect.js';

/** The built-in roles of a new store: one per management level, the product's first six uids. */
export const BUILT_IN_ROLES = [
  { uid: 1, name: 'Admin', management: 'admin' },
  { uid: 2, name: 'Cluster Member', management: 'cluster_member' },
  { uid: 3, name: 'Cluster Viewer', management: 'cluster_viewer' },
  { uid: 4, name: 'DB Member', management: 'db_member' },
  { uid: 5, name: 'DB Viewer', management: 'db_viewer' },
  { uid: 6, name: 'None', management: 'none' },
  { uid: 7, name: 'User Manager', management: 'user_manager' },
  { uid: 8, name: 'Token Verifier', management: 'token_verifier' },
] as const;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const key = (s: string) => s.normalize('NFKC').toLowerCase().normalize('NFKC');

/**
 * The product's user and role model: roles with a management level, users with `name`
 * and/or `email` (each unique, either one logs in), `role_uids`, the e-mail alert fields
 * and `auth_method`. Existing users move in place: an e-mail-shaped username becomes the
 * email (its display name stays the name when no other login uses it), any other username
 * becomes the name.
 */
export function rolesAndUserObject(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('roles')
        .addColumn('uid', dialect === 'postgres' ? 'serial' : 'integer', (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        )
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('name_key', 'text', (c) => c.notNull().unique())
        .addColumn('management', 'text', (c) => c.notNull())
        .execute();
      for (const role of BUILT_IN_ROLES) {
        await db
          .insertInto('roles')
          .values({ ...role, name_key: key(role.name) })
          .execute();
      }
      // Roles made later start at 101: room for built-in roles to come.
      if (dialect === 'postgres') await sql`select setval(pg_get_serial_sequence('roles', 'uid'), 100)`.execute(db);
      else await sql`update sqlite_sequence set seq = 100 where name = 'roles'`.execute(db);
      await db.schema
        .createTable('user_roles')
        .addColumn('uid', 'integer', (c) => c.notNull().references('users.uid').onDelete('cascade'))
        .addColumn('role_uid', 'integer', (c) => c.notNull().references('roles.uid'))
        .addPrimaryKeyConstraint('user_roles_pk', ['uid', 'role_uid'])
        .execute();
      await db.schema.createIndex('user_roles_role_uid').on('user_roles').column('role_uid').execute();
      await db.schema.alterTable('users').addColumn('name_key', 'text').execute();
      await db.schema.alterTable('users').addColumn('email', 'text').execute();
      await db.schema.alterTable('users').addColumn('email_key', 'text').execute();
      await db.schema
        .alterTable('users')
        .addColumn('auth_method', 'text', (c) => c.notNull().defaultTo('regular'))
        .execute();
      await db.schema
        .alterTable('users')
        .addColumn('email_alerts', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      await db.schema
        .alterTable('users')
        .addColumn('cluster_email_alerts', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('users').addColumn('bdbs_email_alerts', 'text').execute();

      const rows: { uid: number; username: string; name: string | null }[] = await db
        .selectFrom('users')
        .select(['uid', 'username', 'name'])
        .orderBy('uid')
        .execute();
      const logins = new Set(rows.map((r) => key(r.username)));
      const names = new Set<string>();
      for (const row of rows) {
        if (EMAIL.test(row.username)) {
          const name = row.name?.trim() ? row.name : null;
          const free = name !== null && !logins.has(key(name)) && !names.has(key(name));
          if (free) names.add(key(name!));
          await db
            .updateTable('users')
            .set({
              email: row.username,
              email_key: key(row.username),
              name: free ? name : null,
              name_key: free ? key(name!) : null,
            })
            .where('uid', '=', row.uid)
            .execute();
        } else {
          names.add(key(row.username));
          await db
            .updateTable('users')
            .set({ name: row.username, name_key: key(row.username) })
            .where('uid', '=', row.uid)
            .execute();
        }
      }
      await db.schema.createIndex('users_name_key').on('users').column('name_key').unique().execute();
      await db.schema.createIndex('users_email_key').on('users').column('email_key').unique().execute();
    },
  };
}
