import { PostgresAdapter, sql, type Transaction } from 'kysely';
import type { Db } from './database.js';
import type { Database } from './schema.js';

/** The advisory lock of the changes that rules over many users depend on ("tessera" on a phone keypad). */
const USERS_LOCK = 8_377_372;

/**
 * Runs `work` in one transaction that no other such transaction overlaps, on this node or any
 * other: on PostgreSQL under an advisory lock held until the commit, on SQLite with the
 * database's one write lock taken at once (a write first, rather than at the first change).
 * For the changes that a rule over many rows must survive — at least one admin, a name or an
 * email that is one user's in either field, a role in use — checked and made in the same
 * transaction, so that two nodes doing the conflicting thing at once cannot both succeed.
 */
export function serialized<T>(db: Db, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    if (trx.getExecutor().adapter instanceof PostgresAdapter) await sql`select pg_advisory_xact_lock(${USERS_LOCK})`.execute(trx);
    else await sql`update settings set value = value where key = '~users'`.execute(trx);
    return work(trx);
  });
}
