/** Node's and PostgreSQL's ways of saying "the database cannot be reached right now". */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'SQLITE_BUSY',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
]);

/** True for errors that mean the store is away, not that the request was wrong. */
export function isStoreUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown; errors?: unknown[] };
  if (typeof e?.code === 'string' && (UNAVAILABLE_CODES.has(e.code) || e.code.startsWith('08'))) return true;
  if (Array.isArray(e?.errors) && e.errors.some(isStoreUnavailable)) return true; // AggregateError of a dual-stack connect
  return (
    typeof e?.message === 'string' &&
    /timeout exceeded when trying to connect|Connection terminated|Query read timeout|connection timeout/i.test(e.message)
  );
}
