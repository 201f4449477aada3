import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, type Migration, Migrator, SqliteAdapter, SqliteDialect, sql } from 'kysely';
import { migrationsFor } from './migrations/index.js';
import { openPostgres } from './postgres.js';
import type { Database } from './schema.js';
import { unitAware } from './unit-aware-dialect.js';

export type Db = Kysely<Database>;

export const SQLITE_FILE = 'tessera.db';

/** How long a PostgreSQL call may take, from asking for a connection to the last answer. */
export const STORE_CALL_MS = 2000;
/** How long bringing the schema up to date may take (one connection, every migration). */
const MIGRATE_MS = 60_000;

export interface StoreLocation {
  dataDir: string;
  databaseUrl?: string;
  /** No PostgreSQL statement runs longer than this (a login's whole deadline). */
  loginTimeoutMs?: number;
}

/**
 * Opens the store — PostgreSQL when a URL is given, else the SQLite file in `dataDir` —
 * and brings its schema up to date. Each migration applies in one transaction on both
 * (on PostgreSQL under an advisory lock, so that nodes starting together do not race), so
 * a process killed at any moment leaves a schema that the next start completes.
 */
export async function openDatabase(where: StoreLocation, migrations = migrationsFor): Promise<Db> {
  if (!where.databaseUrl) {
    const db = openSqlite(where.dataDir);
    try {
      await migrate(db, migrations('sqlite'));
    } catch (err) {
      await db.destroy();
      throw err;
    }
    return db;
  }
  const url = where.databaseUrl;
  const statementMs = Math.max(where.loginTimeoutMs ?? 0, STORE_CALL_MS);
  // The schema through a pool of its own, whose calls may take as long as migrations do.
  const migrating = await openPostgres(url, { callMs: MIGRATE_MS, statementMs: MIGRATE_MS });
  try {
    // Kysely looks for its tables in every schema unless told one: another schema's tables
    // (a second Tessera, or test runs side by side) would pass for ours.
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(migrating);
    await migrate(migrating, migrations('postgres'), rows[0]?.schema);
  } finally {
    await migrating.destroy();
  }
  return openPostgres(url, { callMs: STORE_CALL_MS, statementMs });
}

async function migrate(db: Db, migrations: Record<string, Migration>, schema?: string): Promise<void> {
  const migrator = new Migrator({
    db,
    ...(schema && { migrationTableSchema: schema }),
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'tessera_migrations',
    migrationLockTableName: 'tessera_migrations_lock',
  });
  for (let attempt = 1; ; attempt++) {
    const { error } = await migrator.migrateToLatest();
    if (!error) return;
    // Kysely looks for its tables across every schema of the database; one dropped by someone else
    // meanwhile fails that look ("schema … does not exist", 3F000), never ours: look again.
    if (attempt >= 5 || !isOthersSchemaGone(error, schema)) throw error;
  }
}

function isOthersSchemaGone(error: unknown, ours: string | undefined): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === '3F000' && typeof message === 'string' && ours !== undefined && !message.includes(`"${ours}"`);
}

/** SQLite runs DDL inside a transaction as well as PostgreSQL does; Kysely assumes it cannot. */
class TransactionalSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class TransactionalSqliteDialect extends SqliteDialect {
  override createAdapter(): SqliteAdapter {
    return new TransactionalSqliteAdapter();
  }
}

/**
 * WAL mode and a busy timeout let the CLI write while a server has the file open. The file
 * holds the signing keys: it and its folder are for the owner alone, whatever existed before
 * (SQLite gives its -wal and -shm files the database file's mode).
 */
function openSqlite(dataDir: string): Db {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if ((statSync(dataDir).mode & 0o077) !== 0) chmodSync(dataDir, 0o700);
  const location = path.join(dataDir, SQLITE_FILE);
  closeSync(openSync(location, 'a', 0o600));
  if ((statSync(location).mode & 0o077) !== 0) chmodSync(location, 0o600);
  const file = new SQLite(location);
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
  return new Kysely<Database>({ dialect: unitAware(new TransactionalSqliteDialect({ database })) });
}

/** One round trip to the store, for readiness. */
export async function pingDatabase(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}
