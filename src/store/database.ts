import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, type Migration, Migrator, SqliteDialect } from 'kysely';
import { sqliteMigrations } from './migrations/sqlite.js';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;

export const SQLITE_FILE = 'tessera.db';

/**
 * Opens (creating if needed) the SQLite store in `dataDir` and brings its schema up to date.
 * WAL mode and a busy timeout let the CLI write while a server has the file open.
 */
export async function openSqlite(dataDir: string): Promise<Db> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = new SQLite(path.join(dataDir, SQLITE_FILE));
  file.pragma('journal_mode = WAL');
  file.pragma('busy_timeout = 5000');
  file.pragma('foreign_keys = ON');
  file.pragma('synchronous = NORMAL');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: file }) });
  try {
    await migrate(db, sqliteMigrations);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  return db;
}

async function migrate(db: Db, migrations: Record<string, Migration>): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'tessera_migrations',
    migrationLockTableName: 'tessera_migrations_lock',
  });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}
