import { type Kysely, type Migration, sql } from 'kysely';

/** SQLite migrations, applied in key order. Never edit one that has shipped; add a new one. */
export const sqliteMigrations: Record<string, Migration> = {
  '0001-initial': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('users')
        .addColumn('uid', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('username', 'text', (c) => c.notNull())
        .addColumn('username_key', 'text', (c) => c.notNull().unique())
        .addColumn('name', 'text')
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('password_issue_date', 'text', (c) => c.notNull())
        .addColumn('password_expires_at', 'text')
        .addColumn('locked_until', 'text')
        .addColumn('lock_reset_at', 'text')
        .addColumn('token_epoch', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull().defaultTo(sql`CURRENT_TIMESTAMP`))
        .addColumn('last_login', 'text')
        .execute();
      await db.schema
        .createTable('user_passwords')
        .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
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
        .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
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
        .execute();
    },
  },
};
