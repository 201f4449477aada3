import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';

const LOCK_FILE = 'tessera.lock';
const PID_FILE = 'tessera.pid';

/** Another process serves this data directory. */
export class DataDirLockedError extends Error {}

/**
 * Makes this process the one that serves an SQLite data directory, until `release()`: an
 * exclusive lock that SQLite takes on `tessera.lock` through the operating system, so it
 * ends with the process however that ends (kill -9 included) and never goes stale. A second
 * server on the same directory is refused, naming the first's pid (from `tessera.pid`). The
 * CLI's commands do not take it: they work beside a running server, as SQLite allows.
 */
export function lockDataDir(dataDir: string): { release(): void } {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const lock = takeLock(dataDir, false);
  if (lock === 'busy') {
    const pid = readPid(dataDir);
    throw new DataDirLockedError(
      `another Tessera${pid ? ` (pid ${pid})` : ''} serves the data directory ${path.resolve(dataDir)}: stop it first, or give this one another --data-dir`,
    );
  }
  writeFileSync(path.join(dataDir, PID_FILE), `${process.pid}\n`, { mode: 0o600 });
  return {
    release: () => {
      if (!lock.open) return;
      // A clean stop leaves no pid behind (a kill -9 does: the lock, not the file, says who serves).
      if (readPid(dataDir) === process.pid) rmSync(path.join(dataDir, PID_FILE), { force: true });
      lock.close();
    },
  };
}

/**
 * Another server that holds this data directory's lock now: its pid when `tessera.pid` names it
 * (null when it does not), undefined when none holds it. Makes nothing where no server ever ran.
 */
export function servingPid(dataDir: string): number | null | undefined {
  let lock: SQLite.Database | 'busy';
  try {
    lock = takeLock(dataDir, true);
  } catch {
    return undefined;
  }
  if (lock === 'busy') return readPid(dataDir) ?? null;
  lock.close();
  return undefined;
}

/** The data directory's lock, held by the database returned until it is closed; 'busy' when another process holds it. */
function takeLock(dataDir: string, mustExist: boolean): SQLite.Database | 'busy' {
  const lock = new SQLite(path.join(dataDir, LOCK_FILE), { timeout: 0, fileMustExist: mustExist });
  try {
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('BEGIN EXCLUSIVE');
    return lock;
  } catch (err) {
    lock.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return 'busy';
    throw err;
  }
}

function readPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(dataDir, PID_FILE), 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
