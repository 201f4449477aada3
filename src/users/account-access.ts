import type { Actor } from '../access/actor.js';
import type { Role } from '../access/management.js';
import { holds } from '../access/permissions.js';
import { UnauthorizedActionError } from '../errors.js';
import type { NewPassword } from './new-password.js';
import type { User } from './user.js';
import type { UserGuard } from './user-store.js';

/*
 * The rules about whom an actor may change, the same on every endpoint. `actor` is whoever
 * asks; null for the local CLI, which has the data directory and so every right.
 */

/** Who may manage users (update_user) manages everyone; only an admin manages an admin. */
export function assertMayManage(actor: Actor | null, target: User): void {
  if (actor === null) return;
  if (!holds(actor.rights, 'update_user'))
    throw new UnauthorizedActionError('Only who may manage users (admin, user_manager) may change another user');
  if (target.rights.includes('admin') && !actor.rights.includes('admin')) {
    throw new UnauthorizedActionError('Only an admin may manage an admin');
  }
}

/** Only an admin grants admin rights, directly or through a role. */
export function assertMayGrant(actor: Actor | null, levels: readonly Role[]): void {
  if (levels.includes('admin') && actor !== null && !actor.rights.includes('admin')) {
    throw new UnauthorizedActionError('Only an admin may grant the admin role');
  }
}

/**
 * The rule about whom, asked again by the store of the user as it is when the change is
 * written: checked first on a read made before the password hashing, it could miss a
 * promotion to admin made meanwhile on another node.
 */
export function guardFor(actor: Actor | null, target: User): UserGuard | undefined {
  return actor && actor.uid !== target.uid ? (current) => assertMayManage(actor, current) : undefined;
}

/**
 * A pre-hashed password skips the rules (its text is not here): it moves a user in, given by
 * who manages users or the CLI, never chosen by users for themselves.
 */
export function assertMayPreHash(actor: Actor | null, target: User, password: NewPassword): void {
  if (typeof password !== 'string' && actor?.uid === target.uid) {
    throw new UnauthorizedActionError(
      'A pre-hashed password (password_hash_method) moves a user in from a cluster; choose your own as text, so that the password rules are checked',
    );
  }
}
