import type { Kysely, Migration } from 'kysely';

/**
 * API keys (issue 36): a user's secrets for automation, each kept as the SHA-256 of the key
 * (never the key), with its own expiry, roles (a subset of its owner's; null: all of them) and
 * client addresses. A session started with a key names it, so that revoking the key ends the
 * tokens issued for it.
 */
export function apiKeys(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('uid', 'integer', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull().unique())
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('role_uids', 'text')
        .addColumn('allowed_cidrs', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('last_used_at', 'text')
        .execute();
      await db.schema.createIndex('api_keys_uid').on('api_keys').column('uid').execute();
      await db.schema.alterTable('sessions').addColumn('api_key_id', 'text').execute();
      await db.schema.createIndex('sessions_api_key').on('sessions').column('api_key_id').execute();
    },
  };
}
