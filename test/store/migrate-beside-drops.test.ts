import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, it } from 'vitest';
import { type Db, openDatabase } from '../../src/store/database.js';
import { DATABASE_URL, freshPostgres } from '../helpers/services.js';

describe('migrations beside schemas that come and go (PostgreSQL)', () => {
  it("bring a store up to date while other schemas of the database are dropped (Kysely's look at every schema)", async () => {
    for (let round = 0; round < 3; round++) {
      const others = await Promise.all(Array.from({ length: 12 }, () => freshPostgres()));
      const admin = new pg.Client({ connectionString: DATABASE_URL });
      await admin.connect();
      for (const [i, o] of others.entries())
        await admin.query(
          `create table ${new URL(o.url).searchParams.get('options')!.split('=')[1]}.t${i} (a int, b text)`,
        );
      await admin.end();
      const mine = await freshPostgres();
      const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-unit-'));
      try {
        const [db] = await Promise.all([
          openDatabase({ dataDir, databaseUrl: mine.url }),
          ...others.map((o, i) => new Promise((r) => setTimeout(r, i * 3)).then(() => o.drop())),
        ]);
        await (db as Db).destroy();
      } finally {
        await mine.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  }, 60_000);
});
