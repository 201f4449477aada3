import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { type Dialect, migrationsFor } from '../../src/store/migrations/index.js';
import { freshPostgres } from '../helpers/services.js';

/** The real migrations, with the first one stopped half-way, as a process killed mid-way is. */
function interrupted(dialect: Dialect) {
  const real = migrationsFor(dialect)['0001-initial']!;
  return {
    '0001-initial': {
      async up(db: Parameters<typeof real.up>[0]) {
        await real.up(db); // every table made...
        throw new Error('interrupted'); // ...and then the process is gone
      },
    },
  };
}

describe.each(['sqlite', 'postgres'] as const)('schema migrations on %s', (dialect) => {
  it('apply in one transaction: one stopped half-way leaves nothing, and the next open completes it', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-migrate-'));
    const pg = dialect === 'postgres' ? await freshPostgres() : undefined;
    const where = { dataDir, databaseUrl: pg?.url };
    try {
      await expect(openDatabase(where, interrupted)).rejects.toThrow('interrupted');
      const db = await openDatabase(where);
      try {
        const users = await db.selectFrom('users').select('uid').execute();
        expect(users).toEqual([]);
        const applied = await sql<{ name: string }>`select name from tessera_migrations`.execute(db);
        expect(applied.rows.map((r) => r.name)).toEqual(['0001-initial']);
      } finally {
        await db.destroy();
      }
    } finally {
      await pg?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the SQLite store on disk', () => {
  it('is for its owner alone, also in a folder that existed with a looser mode', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-mode-'));
    chmodSync(dataDir, 0o755);
    try {
      const db = await openDatabase({ dataDir });
      await db.destroy();
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      for (const name of readdirSync(dataDir)) expect([name, statSync(path.join(dataDir, name)).mode & 0o777]).toEqual([name, 0o600]);
      chmodSync(path.join(dataDir, 'tessera.db'), 0o644); // loosened later by hand
      await (await openDatabase({ dataDir })).destroy();
      expect(statSync(path.join(dataDir, 'tessera.db')).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
