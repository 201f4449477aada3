import type { Kysely, Migration } from 'kysely';

/**
 * SAML single sign-on, shared by every node: the authentication requests sent (for the
 * answers' InResponseTo, three minutes, with the browser that asked), the assertions consumed (each once, until it
 * expires), the one-time codes that hand a sign-in to the console (a minute), and each
 * user's last SSO session (for its logout at the identity provider).
 */
export function sso(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('saml_requests')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('issued_at', 'text', (c) => c.notNull())
        .addColumn('browser_hash', 'text')
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('saml_assertions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('saml_assertions_expires_at').on('saml_assertions').column('expires_at').execute();
      await db.schema
        .createTable('sso_sign_ins')
        .addColumn('code_hash', 'text', (c) => c.primaryKey())
        .addColumn('uid', 'integer', (c) => c.notNull())
        .addColumn('token_epoch', 'integer', (c) => c.notNull())
        .addColumn('browser_hash', 'text')
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('sso_sessions')
        .addColumn('uid', 'integer', (c) => c.primaryKey())
        .addColumn('session', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
    },
  };
}
