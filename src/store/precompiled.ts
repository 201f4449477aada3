import { type Compilable, CompiledQuery, type Kysely } from 'kysely';

/**
 * A query built and compiled once, run with new parameters in the order of the values it
 * was built with. For the hot paths: building a Kysely query costs more than running it
 * on SQLite. The SQL is the dialect's own, since `db` is.
 */
export function precompiled<DB, Row>(
  db: Kysely<DB>,
  query: Compilable<Row>,
): (...parameters: unknown[]) => Promise<Row[]> {
  const { sql } = query.compile();
  return async (...parameters) => (await db.executeQuery<Row>(CompiledQuery.raw(sql, parameters))).rows;
}
