import type { Kysely, Migration } from 'kysely';

/**
 * Sessions (issue 28): each login starts one, its tokens carry its id (`sid`); it is listed,
 * ended, bounded by an absolute lifetime, and (for the console) idled out. A revocation event
 * may now end one session (`sid`).
 */
export function sessions(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('uid', 'integer', (c) => c.notNull())
        .addColumn('realm', 'text', (c) => c.notNull())
        .addColumn('ip', 'text')
        .addColumn('user_agent', 'text')
        .addColumn('console', 'integer', (c) => c.notNull())
        .addColumn('started_at', 'text', (c) => c.notNull())
        .addColumn('refreshed_at', 'text', (c) => c.notNull())
        .addColumn('last_seen_at', 'text', (c) => c.notNull())
        .addColumn('ends_at', 'text', (c) => c.notNull())
        .addColumn('ended_at', 'text')
        .execute();
      await db.schema.createIndex('sessions_uid').on('sessions').columns(['uid', 'ends_at']).execute();
      await db.schema.createIndex('sessions_ends_at').on('sessions').column('ends_at').execute();
      await db.schema.alterTable('revocations').addColumn('sid', 'text').execute();
    },
  };
}
