import { type Kysely, type Migration, sql } from 'kysely';
import { BUILT_IN_ROLES } from './0002-roles-and-user-object.js';
import type { Dialect } from './dialect.js';

/** A role name's key as 0007 writes it: NFKC, runs of white space one, trimmed — its case kept. */
const key = (name: string) => name.normalize('NFKC').replace(/\s+/g, ' ').trim();

type BuiltIn = (typeof BUILT_IN_ROLES)[number];

/**
 * `role_uids` becomes the one source of a user's roles, as in the product (issue 33). A user's
 * own `role` column (kept beside its roles until now, the higher of the two winning) becomes the
 * built-in role of that level among its roles, and the column goes; a user with neither gets the
 * built-in None role. From now on a built-in role's level never changes, since a level written as
 * `role` means it: a built-in role that a cluster had given another level first moves aside — a
 * role of the cluster's own (uid 101 up) takes its name, its level, its holders and the LDAP
 * mappings that named it, and the built-in role gets back its name and level — so that nobody
 * gains or loses a right in the move (an event in the event log says what moved).
 */
export function rolesOneSource(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<any>) {
      for (const role of BUILT_IN_ROLES) {
        const stored = await db
          .selectFrom('roles')
          .select(['name', 'management'])
          .where('uid', '=', role.uid)
          .executeTakeFirst();
        if (stored && stored.management !== role.management) await moveAside(db, dialect, role, stored);
      }
      for (const role of BUILT_IN_ROLES) {
        const onlyWhenAlone =
          role.management === 'none'
            ? sql`and not exists (select 1 from user_roles ur where ur.uid = users.uid)`
            : sql``;
        await sql`insert into user_roles (uid, role_uid)
          select uid, ${role.uid} from users
          where role = ${role.management}
            and not exists (select 1 from user_roles ur where ur.uid = users.uid and ur.role_uid = ${role.uid})
            ${onlyWhenAlone}`.execute(db);
      }
      await db.schema.alterTable('users').dropColumn('role').execute();
    },
  };
}

/** The cluster's use of a built-in role at another level, moved to a role of its own with every holder and mapping. */
async function moveAside(
  db: Kysely<any>,
  dialect: Dialect,
  builtIn: BuiltIn,
  stored: { name: string; management: string },
) {
  const taken = async (name: string) =>
    (await db
      .selectFrom('roles')
      .select('uid')
      .where('name_key', '=', key(name))
      .where('uid', '!=', builtIn.uid)
      .executeTakeFirst()) !== undefined;
  let name: string = builtIn.name;
  for (let n = 0; await taken(name); n++) name = `${builtIn.name} (built-in${n ? ` ${n + 1}` : ''})`;
  await db
    .updateTable('roles')
    .set({ name, name_key: key(name), management: builtIn.management })
    .where('uid', '=', builtIn.uid)
    .execute();
  // Its name, when the cluster had given it one; else the built-in name with the level it had.
  const wanted = stored.name === name ? `${stored.name} (${stored.management})` : stored.name;
  let ownName = wanted;
  for (let n = 2; await taken(ownName); n++) ownName = `${wanted} (${n})`;
  // The next uid of the cluster's own roles (101 up), given by hand: a role made with a uid of its own may be past the sequence.
  const top = await db
    .selectFrom('roles')
    .select((eb) => eb.fn.max('uid').as('uid'))
    .executeTakeFirstOrThrow();
  const uid = Math.max(Number(top.uid ?? 0), 100) + 1;
  await db
    .insertInto('roles')
    .values({ uid, name: ownName, name_key: key(ownName), management: stored.management })
    .execute();
  // PostgreSQL's sequence moves past it, never back (a role deleted since may have taken a higher uid).
  if (dialect === 'postgres')
    await sql`select setval(pg_get_serial_sequence('roles', 'uid'), greatest(${uid}, coalesce(pg_sequence_last_value(pg_get_serial_sequence('roles', 'uid')::regclass), 1)))`.execute(
      db,
    );
  await db.updateTable('user_roles').set({ role_uid: uid }).where('role_uid', '=', builtIn.uid).execute();
  const mappings: { uid: number; role_uids: string }[] = await db
    .selectFrom('ldap_mappings')
    .select(['uid', 'role_uids'])
    .execute();
  for (const mapping of mappings) {
    const roleUids = JSON.parse(mapping.role_uids) as number[];
    if (!roleUids.includes(builtIn.uid)) continue;
    await db
      .updateTable('ldap_mappings')
      .set({ role_uids: JSON.stringify(roleUids.map((r) => (r === builtIn.uid ? uid : r))) })
      .where('uid', '=', mapping.uid)
      .execute();
  }
  await db
    .insertInto('event_log')
    .values({
      time: new Date().toISOString(),
      type: 'role_create',
      severity: 'INFO',
      uid: null,
      actor_uid: null,
      record: JSON.stringify({
        outcome: 'success',
        target: `role ${uid} (${ownName})`,
        reason: `store migration 0010: built-in role ${builtIn.uid} had management ${stored.management}; its holders and LDAP mappings moved to role ${uid}, and role ${builtIn.uid} is ${name} (${builtIn.management}) again`,
      }),
    })
    .execute();
}
