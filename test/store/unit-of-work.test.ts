import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Db, openDatabase } from '../../src/store/database.js';
import { serialized } from '../../src/store/serialized.js';
import { readSetting, writeSetting } from '../../src/store/settings.js';
import { afterCommit, atomically } from '../../src/unit-of-work.js';
import { freshPostgres } from '../helpers/services.js';

describe.each(['sqlite', 'postgres'] as const)('a unit of work on %s', (dialect) => {
  let db: Db;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-unit-'));
    let databaseUrl: string | undefined;
    if (dialect === 'postgres') {
      const pg = await freshPostgres();
      databaseUrl = pg.url;
      cleanup = async () => {
        await pg.drop();
        rmSync(dataDir, { recursive: true, force: true });
      };
    } else cleanup = async () => rmSync(dataDir, { recursive: true, force: true });
    db = await openDatabase({ dataDir, databaseUrl });
  });
  afterEach(async () => {
    await db.destroy();
    await cleanup();
  });

  it('commits its writes together, or none of them when it throws', async () => {
    await atomically(async () => {
      await writeSetting(db, 'a', 1);
      await writeSetting(db, 'b', 2);
    });
    expect([await readSetting(db, 'a'), await readSetting(db, 'b')]).toEqual([1, 2]);
    await expect(
      atomically(async () => {
        await writeSetting(db, 'a', 10);
        await writeSetting(db, 'c', 3);
        throw new Error('refused after writing');
      }),
    ).rejects.toThrow('refused after writing');
    expect([await readSetting(db, 'a'), await readSetting(db, 'c')]).toEqual([1, undefined]);
  });

  it('holds nothing before its first write: a read, then another writer goes on', async () => {
    await atomically(async () => {
      expect(await readSetting(db, 'x')).toBeUndefined();
      // Outside the unit (as another request would): on SQLite it would wait forever for a begun transaction.
      await elsewhere(() => writeSetting(db, 'x', 'other'));
      await writeSetting(db, 'y', 'mine');
      expect(await readSetting(db, 'x')).toBe('other');
    });
    expect(await readSetting(db, 'y')).toBe('mine');
  });

  it('sees its own writes before it commits; the rest of the world does not', async () => {
    let seenOutside: unknown = 'not read';
    await atomically(async () => {
      await writeSetting(db, 'z', 'new');
      expect(await readSetting(db, 'z')).toBe('new');
      if (dialect === 'postgres') seenOutside = await elsewhere(() => readSetting(db, 'z'));
    });
    if (dialect === 'postgres') expect(seenOutside).toBeUndefined();
    expect(await readSetting(db, 'z')).toBe('new');
  });

  it("makes a store's own transaction a savepoint: its rollback undoes its part alone", async () => {
    await atomically(async () => {
      await writeSetting(db, 'kept', true);
      await expect(
        serialized(db, async (trx) => {
          await trx.insertInto('settings').values({ key: 'undone', value: '1' }).execute();
          await trx.insertInto('settings').values({ key: 'undone', value: '2' }).execute(); // a duplicate key
        }),
      ).rejects.toThrow();
      await writeSetting(db, 'after', true);
    });
    expect(await readSetting(db, 'kept')).toBe(true);
    expect(await readSetting(db, 'undone')).toBeUndefined();
    expect(await readSetting(db, 'after')).toBe(true);
  });

  it('runs what waits for the commit after it, and never after a rollback', async () => {
    const seen: string[] = [];
    await atomically(async () => {
      await writeSetting(db, 'k', 1);
      afterCommit(() => seen.push('committed'));
      seen.push('work done');
    });
    await atomically(async () => {
      await writeSetting(db, 'k', 2);
      afterCommit(() => seen.push('must not run'));
      throw new Error('no');
    }).catch(() => {});
    expect(seen).toEqual(['work done', 'committed']);
    expect(await readSetting(db, 'k')).toBe(1);
  });
});

/** The async context of no unit, taken as the file loads: what another request would run in. */
const outsideAnyUnit = AsyncLocalStorage.snapshot();

/** Work run outside the current unit, as another request's. */
function elsewhere<T>(work: () => Promise<T>): Promise<T> {
  return outsideAnyUnit(work);
}
