import type { Kysely, Migration } from 'kysely';

/**
 * Second factors (issue 37): a user's authenticator apps (TOTP, the secret sealed like the
 * store's other secrets) and passkeys (WebAuthn public keys), its recovery codes (SHA-256
 * of each, deleted when used), the challenges between a login's two steps (an mfa_token's
 * SHA-256) and of a passkey's registration, and a role's `mfa_required`.
 */
export function secondFactors(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('mfa_factors')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('uid', 'integer', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('confirmed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('secret', 'text')
        .addColumn('last_step', 'bigint')
        .addColumn('credential_id', 'text', (c) => c.unique())
        .addColumn('public_key', 'text')
        .addColumn('counter', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('transports', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_used_at', 'text')
        .execute();
      await db.schema.createIndex('mfa_factors_uid').on('mfa_factors').column('uid').execute();
      await db.schema
        .createTable('mfa_recovery_codes')
        .addColumn('uid', 'integer', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('mfa_recovery_codes_pk', ['uid', 'hash'])
        .execute();
      await db.schema
        .createTable('mfa_challenges')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('uid', 'integer', (c) => c.notNull())
        .addColumn('purpose', 'text', (c) => c.notNull())
        .addColumn('client', 'text', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('mfa_challenges_expires').on('mfa_challenges').column('expires_at').execute();
      await db.schema
        .alterTable('roles')
        .addColumn('mfa_required', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
