import { sql } from 'kysely';
import type { Db } from './database.js';

/** When the store was made: its first migration's time (every node reads the same), ISO 8601 to the second. */
export async function storeCreatedTime(db: Db): Promise<string> {
  const { rows } = await sql<{ at: string | null }>`select min(timestamp) as at from tessera_migrations`.execute(db);
  const at = rows[0]?.at;
  return `${new Date(at ?? 0).toISOString().slice(0, 19)}Z`;
}
