import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, sql, SqliteDialect } from 'kysely';
import { type Dialect, migrationsFor } from './migrations/index.js';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;

export const SQLITE_FILE = 'tessera.db';

export interface StoreLocation {
  dataDir: string;
  databaseUrl?: string;
}

/**
 * Opens the store — PostgreSQL when a URL is given, else the SQLite file in `dataDir` —
 * and brings its schema up to date (on PostgreSQL under an advisory lock, so that nodes
 * starting together do not race).
 */
export async function openDatabase(where: StoreLocation): Promise<Db> {
  const dialect: Dialect = where.databaseUrl ? 'postgres' : 'sqlite';
  const db = where.databaseUrl ? await openPostgres(where.databaseUrl) : openSqlite(where.dataDir);
  try {
    const { error } = await new Migrator({
      db,
      provider: { getMigrations: async () => migrationsFor(dialect) },
      migrationTableName: 'tessera_migrations',
      migrationLockTableName: 'tessera_migrations_lock',
    }).migrateToLatest();
    if (error) throw error;
  } catch (err) {
    await db.destroy();
    throw err;
  }
  return db;
}

/** WAL mode and a busy timeout let the CLI write while a server has the file open. */
function openSqlite(dataDir: string): Db {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = new SQLite(path.join(dataDir, SQLITE_FILE));
  file.pragma('journal_mode = WAL');
  file.pragma('busy_timeout = 5000');
  file.pragma('foreign_keys = ON');
  file.pragma('synchronous = NORMAL');
  // Kysely prepares every query anew; its SQL texts are few and fixed, so keep each
  // statement once prepared (preparing cost more than running on the hot paths).
  const statements = new Map<string, SQLite.Statement>();
  const database = {
    close: () => file.close(),
    prepare: (text: string) => {
      let statement = statements.get(text);
      if (!statement) {
        statement = file.prepare(text);
        if (statements.size < 1000) statements.set(text, statement);
      }
      return statement;
    },
  };
  return new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
}

/** Short timeouts: when PostgreSQL is away, requests fail fast (503) rather than pile up. */
async function openPostgres(url: string): Promise<Db> {
  const { default: pg } = await import('pg'); // loaded only by nodes that use it
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 1500,
    query_timeout: 5000,
    idleTimeoutMillis: 30_000,
  });
  // A lost server must fail the queries in flight, not the process: pg also emits the loss
  // as an 'error' event, on idle clients through the pool and on busy ones directly.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

/** One round trip to the store, for readiness. */
export async function pingDatabase(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}
