/**
 * SQLite's ways of saying "the database file cannot be used right now" (locked by another
 * process for too long, unreadable, full, read-only, damaged). PostgreSQL's faults already
 * leave the driver as StoreUnavailableError (see postgres.ts).
 */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|CORRUPT|NOTADB|PROTOCOL)/;

/** True for errors that mean the store is away, not that the request was wrong. */
export function isStoreUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && UNAVAILABLE.test(code);
}
