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

interface Change {
  uid: number;
  realm: string;
  name: string | null;
  name_key: string | null;
  email_key: string | null;
  old: Row;
}

const BATCH = 10_000;

/**
 * One account, one identity. Login keys ignore white space as a directory does (at either
 * end, and runs of it), and a directory user is keyed by its name like any user — no longer
 * apart under "ldap:" — so that a name belongs to one account whatever the way in; the entry
 * it is in the directory (its DN) is kept in `directory_key`, filled at its next login.
 *
 * Rows whose keys do not change keep them. Of the rest, in order (local users by uid, then
 * directory users by uid), each takes its new key unless a row already holds it: then a local
 * user keeps its old key (which no new key equals: it had white space that keys no longer
 * have), and a directory user — another row for the same person, or a name a local user wins —
 * is removed, and its tokens end.
 */
export function oneIdentity(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('users').addColumn('directory_key', 'text').execute();
      await db.schema.createIndex('users_directory_key').on('users').column('directory_key').unique().execute();
      const changes: Change[] = [];
      for (let after = 0; ; ) {
        const rows: Row[] = await db
          .selectFrom('users')
          .select(['uid', 'name', 'name_key', 'email', 'email_key', 'username_key', 'realm'])
          .where('uid', '>', after)
          .orderBy('uid')
          .limit(BATCH)
          .execute();
        for (const row of rows) {
          const name = row.realm === 'ldap' && row.name !== null ? canonical(row.name) : row.name;
          const change = {
            uid: row.uid,
            realm: row.realm,
            name,
            name_key: name === null ? null : key(name),
            email_key: row.email === null ? null : key(row.email),
            old: row,
          };
          if (
            change.name_key !== row.name_key ||
            change.email_key !== row.email_key ||
            name !== row.name ||
            (change.name_key ?? change.email_key) !== row.username_key
          )
            changes.push(change);
        }
        if (rows.length < BATCH) break;
        after = rows.at(-1)!.uid;
      }
      changes.sort((a, b) => Number(a.realm === 'ldap') - Number(b.realm === 'ldap') || a.uid - b.uid);
      const changing = new Set(changes.map((c) => c.uid));
      const claimed = new Set<string>();
      // What changing rows keep as it was is theirs already.
      for (const c of changes)
        for (const field of ['name_key', 'email_key'] as const)
          if (c[field] !== null && c[field] === c.old[field]) claimed.add(c[field]!);
      /** Whether a row that keeps its keys, or a changed row before this one, holds `k`. */
      const held = async (k: string) => {
        if (claimed.has(k)) return true;
        const rows = await db
          .selectFrom('users')
          .select('uid')
          .where((eb) => eb.or([eb('name_key', '=', k), eb('email_key', '=', k)]))
          .execute();
        return rows.some((r: { uid: number }) => !changing.has(r.uid));
      };
      const removed: number[] = [];
      const final: Change[] = [];
      for (const change of changes) {
        for (const field of ['name_key', 'email_key'] as const) {
          const k = change[field];
          if (k === null || k === change.old[field] || !(await held(k))) continue;
          if (change.realm === 'ldap') removed.push(change.uid);
          else change[field] = change.old[field];
        }
        if (removed.at(-1) === change.uid) continue;
        for (const k of [change.name_key, change.email_key]) if (k) claimed.add(k);
        final.push(change);
      }
      const now = new Date().toISOString();
      for (const uid of removed) {
        await db.deleteFrom('users').where('uid', '=', uid).execute();
        await db.insertInto('revocations').values({ uid, created_at: now }).execute();
      }
      // Two passes, so that no row's new key meets another's old one in the unique indexes.
      for (const { uid } of final) {
        await db
          .updateTable('users')
          .set({ name_key: null, email_key: null, username_key: `~${uid}` })
          .where('uid', '=', uid)
          .execute();
      }
      for (const { uid, name, name_key, email_key, old } of final) {
        await db
          .updateTable('users')
          .set({ name, name_key, email_key, username: name ?? old.email ?? '', username_key: (name_key ?? email_key)! })
          .where('uid', '=', uid)
          .execute();
      }
    },
  };
}
