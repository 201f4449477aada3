import type { Kysely, Migration } from 'kysely';
import type { Dialect } from './dialect.js';

/**
 * The cluster's event log (GET /v1/logs): every security event, one row each, the record as
 * JSON beside the columns it is found by — when, which type, which user (acted or acted on).
 */
export function eventLog(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('event_log')
        .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        )
        .addColumn('time', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('severity', 'text', (c) => c.notNull())
        .addColumn('uid', 'integer')
        .addColumn('actor_uid', 'integer')
        .addColumn('record', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('event_log_time').on('event_log').column('time').execute();
      // What the log is searched and pruned by: a user's events, a type's, the warnings.
      await db.schema.createIndex('event_log_uid').on('event_log').columns(['uid', 'time']).execute();
      await db.schema.createIndex('event_log_actor_uid').on('event_log').columns(['actor_uid', 'time']).execute();
      await db.schema.createIndex('event_log_type').on('event_log').columns(['type', 'time']).execute();
      await db.schema.createIndex('event_log_severity').on('event_log').columns(['severity', 'id']).execute();
    },
  };
}
