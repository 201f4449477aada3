import { type Kysely, type Migration, sql } from 'kysely';
import { BUILT_IN_ROLES } from './0002-roles-and-user-object.js';

/**
 * `role_uids` becomes the one source of a user's roles, as in the product (issue 33). A user's
 * own `role` column (kept beside its roles until now, the higher of the two winning) becomes the
 * built-in role of that level among its roles, so that every user keeps the rights it had, and
 * the column goes; a user with neither gets the built-in None role. The built-in roles get back
 * the level their uid names: from now on it never changes, and this move relies on it.
 */
export function rolesOneSource(): Migration {
  return {
    async up(db: Kysely<any>) {
      for (const role of BUILT_IN_ROLES) {
        await db.updateTable('roles').set({ management: role.management }).where('uid', '=', role.uid).execute();
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
