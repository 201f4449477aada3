import { type Kysely, type Migration, sql } from 'kysely';

/** SQLite migrations, applied in key order. Never edit one that has shipped; add a new one. */
export const sqliteMigrations: Record<string, Migration> = {
  '0001-users-and-keys': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('users')
        .addColumn('uid', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('username', 'text', (c) => c.notNull())
        .addColumn('username_key', 'text', (c) => c.notNull().unique())
        .addColumn('name', 'text')
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('password_issue_date', 'text', (c) => c.notNull())
        .addColumn('password_expires_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull().defaultTo(sql`CURRENT_TIMESTAMP`))
        .addColumn('last_login', 'text')
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
