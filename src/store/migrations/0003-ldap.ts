import type { Kysely, Migration } from 'kysely';
import type { Dialect } from './dialect.js';

/**
 * LDAP: the mappings from a directory group to roles, and the realm of a user. A user of
 * the directory gets a row of its own at its first login (realm `ldap`, no password, its
 * logins kept apart from local ones), so that its tokens, lockout, last login and
 * revocation work as a local user's do; the users list and the admin count leave it out.
 */
export function ldap(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('users')
        .addColumn('realm', 'text', (c) => c.notNull().defaultTo('local'))
        .execute();
      await db.schema
        .createTable('ldap_mappings')
        .addColumn('uid', dialect === 'postgres' ? 'serial' : 'integer', (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        )
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('name_key', 'text', (c) => c.notNull().unique())
        .addColumn('dn', 'text', (c) => c.notNull())
        /** JSON array of role uids. */
        .addColumn('role_uids', 'text', (c) => c.notNull())
        .addColumn('email', 'text')
        .addColumn('email_alerts', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('cluster_email_alerts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('bdbs_email_alerts', 'text')
        .execute();
    },
  };
}
