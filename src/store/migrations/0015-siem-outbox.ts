import type { Kysely, Migration } from 'kysely';
import type { Dialect } from './dialect.js';

/**
 * The events on their way to the operator's SIEM (issue 38): one row an event a sink, written in
 * the transaction of the change it records and deleted once the sink took it; and each sink's
 * delivery — which node holds it (a lease), how it goes, what it delivered and dropped.
 */
export function siemOutbox(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('siem_outbox')
        .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        )
        .addColumn('sink', 'text', (c) => c.notNull())
        .addColumn('event', 'text', (c) => c.notNull())
        // A change's event (written in its transaction), or a sign-in's: the bound drops sign-ins first.
        .addColumn('change', 'integer', (c) => c.notNull()) // 1 or 0: SQLite has no boolean
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('siem_outbox_sink').on('siem_outbox').columns(['sink', 'change', 'id']).execute();
      await db.schema
        .createTable('siem_sinks')
        .addColumn('sink', 'text', (c) => c.primaryKey())
        .addColumn('node', 'text', (c) => c.notNull())
        .addColumn('lease_until', 'bigint', (c) => c.notNull())
        .addColumn('failing_since', 'bigint')
        .addColumn('last_error', 'text')
        .addColumn('last_delivered_at', 'bigint')
        .addColumn('delivered', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('failed', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('dropped', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
