import type { Actor } from '../access/actor.js';
import { holds } from '../access/permissions.js';
import { ForbiddenError } from '../errors.js';
import { found } from './account-target.js';
import type { User } from './user.js';

/** Whether `actor` may see user `uid`: itself, or anyone for who may view users. */
function maySee(actor: Actor, uid: number): boolean {
  return actor.uid === uid || holds(actor.rights, 'view_user_info');
}

/**
 * The decision of every read of one user: user `uid` as `actor` may see it, given what was
 * read of it (`user`; undefined: none). Who may not see it is refused whatever was read, so
 * learns nothing of whether the user exists. A caller with the user in memory calls it as
 * it is; `viewUser` awaits the read first.
 */
export function userSeenBy(actor: Actor, uid: number, user: User | undefined): User {
  if (!maySee(actor, uid)) throw new ForbiddenError();
  return found(user);
}

/** userSeenBy with the user loaded by `read`: only for who may see it (a refusal needs no read, and costs none). */
export async function viewUser(
  actor: Actor,
  uid: number,
  read: (uid: number) => Promise<User | undefined>,
): Promise<User> {
  return userSeenBy(actor, uid, maySee(actor, uid) ? await read(uid) : undefined);
}
