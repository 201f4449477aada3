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
 * transaction, so that two nodes doing the conflicting thing at once cannot both succeed;
 * and for a settings row changed from what it holds (the policy), so that no change is lost.
 */
export function serialized<T>(db: Db, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    // Read committed whatever the server's default: each read after the lock sees what the previous holder committed
    // (under repeatable read the snapshot would be taken before the lock is granted).
    return db
      .transaction()
      .setIsolationLevel('read committed')
      .execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(${USERS_LOCK})`.execute(trx);
        return work(trx);
      });
  }
  return db.transaction().execute(async (trx) => {
    await sql`update settings set value = value where key = '~users'`.execute(trx);
    return work(trx);
  });
}
