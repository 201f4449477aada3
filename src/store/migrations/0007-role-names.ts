import type { Kysely, Migration } from 'kysely';

/** A role name's key as this migration writes it: NFKC, runs of white space one, trimmed — its case kept. */
const key = (name: string) => name.normalize('NFKC').replace(/\s+/g, ' ').trim();

/**
 * Role names compare with their case, as the product's do: a role named "admin" is not the
 * built-in "Admin" (clients of the product create it). Every role's key is written again;
 * keys unique ignoring case stay unique with it.
 */
export function roleNames(): Migration {
  return {
    async up(db: Kysely<any>) {
      const rows: { uid: number; name: string }[] = await db.selectFrom('roles').select(['uid', 'name']).execute();
      for (const row of rows)
        await db
          .updateTable('roles')
          .set({ name_key: key(row.name) })
          .where('uid', '=', row.uid)
          .execute();
    },
  };
}
