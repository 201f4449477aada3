import type { ColumnDefinitionBuilder, Kysely, Migration } from 'kysely';
import type { Dialect } from './dialect.js';

/** How each dialect spells a generated integer key. */
function keyType(dialect: Dialect, big = false) {
  return dialect === 'postgres' ? (big ? 'bigserial' : 'serial') : 'integer';
}

function keyColumn(dialect: Dialect) {
  return (c: ColumnDefinitionBuilder) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
}

export function initial(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('users')
        .addColumn('uid', keyType(dialect), keyColumn(dialect))
        .addColumn('username', 'text', (c) => c.notNull())
        .addColumn('username_key', 'text', (c) => c.notNull().unique())
        .addColumn('name', 'text')
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('password_issue_date', 'text', (c) => c.notNull())
        .addColumn('password_expires_at', 'text')
        .addColumn('locked_until', 'text')
        .addColumn('lock_reset_at', 'text')
        .addColumn('token_epoch', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_login', 'text')
        .execute();
      await db.schema
        .createTable('user_passwords')
        .addColumn('id', keyType(dialect), keyColumn(dialect))
        .addColumn('uid', 'integer', (c) => c.notNull().references('users.uid').onDelete('cascade'))
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('user_passwords_uid').on('user_passwords').column('uid').execute();
      await db.schema
        .createTable('settings')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('revocations')
        .addColumn('id', keyType(dialect, true), keyColumn(dialect))
        .addColumn('uid', 'integer')
        .addColumn('jti', 'text')
        .addColumn('expires_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('signing_keys')
        .addColumn('kid', 'text', (c) => c.primaryKey())
        .addColumn('alg', 'text', (c) => c.notNull())
        .addColumn('public_jwk', 'text', (c) => c.notNull())
        .addColumn('private_jwk', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('activate_at', 'text')
        .addColumn('retired_at', 'text')
        .execute();
    },
  };
}
