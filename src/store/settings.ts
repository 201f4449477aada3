import type { Db } from './database.js';

/** One named JSON value of the settings table, or undefined. */
export async function readSetting<T>(db: Db, key: string): Promise<T | undefined> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
  return row && (JSON.parse(row.value) as T);
}

/** Sets one named JSON value of the settings table. */
export async function writeSetting(db: Db, key: string, value: unknown): Promise<void> {
  const json = JSON.stringify(value);
  await db
    .insertInto('settings')
    .values({ key, value: json })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: json }))
    .execute();
}
