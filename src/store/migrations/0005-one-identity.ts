import type { Kysely, Migration } from 'kysely';

/** The key of a login as src/users/username.ts makes it since this migration (kept here as it was then). */
const key = (s: string) => s.normalize('NFKC').replace(/\s+/g, ' ').trim().toLowerCase().normalize('NFKC');
const canonical = (s: string) => s.normalize('NFKC').replace(/\s+/g, ' ').trim();

interface Row {
  uid: number;
  name: string | null;
  name_key: string | null;
  email: string | null;
  email_key: string | null;
  username_key: string;
  realm: string;
}

const BATCH = 10_000;

/**
 * One account, one identity. Login keys ignore white space as a directory does (at either
 * end, and runs of it), and a directory user is keyed by its name like any user — no longer
 * apart under "ldap:" — so that a name belongs to one account whatever the way in; the entry
 * it is in the directory (its DN) is kept in `directory_key`, filled at its next login.
 *
 * Where two accounts now share a key, the first keeps it: a local user keeps its old key
 * (never a new one: an old key that changes had runs of white space, which no new key has),
 * a directory user that a local user or an older directory user of the same spelling shadows
 * is removed (it was another row for the same person, or a name the local user wins), and its
 * tokens end.
 */
export function oneIdentity(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('users').addColumn('directory_key', 'text').execute();
      await db.schema.createIndex('users_directory_key').on('users').column('directory_key').unique().execute();
      const claimed = new Set<string>();
      const changed: { uid: number; name_key: string | null; email_key: string | null; username_key: string; name: string | null }[] = [];
      const removed: number[] = [];
      for (const realm of ['local', 'ldap']) {
        for (let after = 0; ; ) {
          const rows: Row[] = await db
            .selectFrom('users')
            .select(['uid', 'name', 'name_key', 'email', 'email_key', 'username_key', 'realm'])
            .where('realm', '=', realm)
            .where('uid', '>', after)
            .orderBy('uid')
            .limit(BATCH)
            .execute();
          for (const row of rows) {
            const keys = { name_key: row.name === null ? null : key(row.name), email_key: row.email === null ? null : key(row.email) };
            if ((keys.name_key && claimed.has(keys.name_key)) || (keys.email_key && claimed.has(keys.email_key))) {
              if (realm === 'ldap') {
                removed.push(row.uid);
                continue;
              }
              if (keys.name_key && claimed.has(keys.name_key)) keys.name_key = row.name_key;
              if (keys.email_key && claimed.has(keys.email_key)) keys.email_key = row.email_key;
            }
            for (const k of [keys.name_key, keys.email_key]) if (k) claimed.add(k);
            const name = realm === 'ldap' && row.name !== null ? canonical(row.name) : row.name;
            const username_key = (keys.name_key ?? keys.email_key)!;
            if (keys.name_key !== row.name_key || keys.email_key !== row.email_key || username_key !== row.username_key || name !== row.name) {
              changed.push({ uid: row.uid, ...keys, username_key, name });
            }
          }
          if (rows.length < BATCH) break;
          after = rows.at(-1)!.uid;
        }
      }
      const now = new Date().toISOString();
      for (const uid of removed) {
        await db.deleteFrom('users').where('uid', '=', uid).execute();
        await db.insertInto('revocations').values({ uid, created_at: now }).execute();
      }
      // Two passes, so that no row's new key meets another's old one in the unique indexes.
      for (const row of changed) {
        await db.updateTable('users').set({ name_key: null, email_key: null, username_key: `~${row.uid}` }).where('uid', '=', row.uid).execute();
      }
      for (const { uid, ...columns } of changed) {
        await db.updateTable('users').set({ ...columns, username: columns.name ?? undefined }).where('uid', '=', uid).execute();
      }
    },
  };
}
