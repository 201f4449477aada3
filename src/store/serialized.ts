import { performance } from 'node:perf_hooks';
import { PostgresAdapter, sql, type Transaction } from 'kysely';
import { StoreUnavailableError } from '../errors.js';
import type { Db } from './database.js';
import type { Database } from './schema.js';

/** The advisory lock of the changes that rules over many users depend on ("tessera" on a phone keypad). */
const USERS_LOCK = 8_377_372;
/** How long a change waits its turn behind others (a burst of changes on every node) before it is refused. */
const LOCK_WAIT_MS = 15_000;

/**
 * The users lock, asked for again until granted: each try is a statement answered at once, so a
 * change queued behind a burst on every node waits its turn (up to LOCK_WAIT_MS) while a store that
 * stopped answering is still known within a store call's time (a blocking pg_advisory_xact_lock
 * would wait under the call's 2 s). Every waiter asks as often, whenever it came: none is favoured.
 */
async function takeUsersLock(trx: Transaction<Database>): Promise<void> {
  const end = performance.now() + LOCK_WAIT_MS;
  for (;;) {
    const { rows } = await sql<{
      granted: boolean;
    }>`select pg_try_advisory_xact_lock(${USERS_LOCK}) as granted`.execute(trx);
    if (rows[0]?.granted) return;
    if (performance.now() > end) throw new StoreUnavailableError('other changes held the users lock too long');
    await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 10));
  }
}

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
        await takeUsersLock(trx);
        return work(trx);
      });
  }
  return db.transaction().execute(async (trx) => {
    await sql`update settings set value = value where key = '~users'`.execute(trx);
    return work(trx);
  });
}
