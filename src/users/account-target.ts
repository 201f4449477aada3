import {
  CertificateUserError,
  DirectoryUserError,
  InvalidRequestError,
  SsoUserError,
  UserNotFoundError,
} from '../errors.js';
import type { User } from './user.js';
import type { UserStore } from './user-store.js';

/** The user a use case acts on, or user_not_found. */
export function found(user: User | undefined): User {
  if (!user) throw new UserNotFoundError();
  return user;
}

/** The user of this uid as the store has it now, or user_not_found. */
export async function mustGet(users: Pick<UserStore, 'getByUid'>, uid: number): Promise<User> {
  return found(await users.getByUid(uid));
}

/** A user whose password and profile live here: a directory user's live in the directory. */
export function localOnly(user: User): User {
  if (user.realm === 'ldap') throw new DirectoryUserError();
  return user;
}

/** A user who logs in with a password kept here: not a directory user, not a certificate user. */
export function passwordUser(user: User): User {
  if (localOnly(user).authMethod === 'certificate') throw new CertificateUserError();
  if (user.authMethod === 'sso') throw new SsoUserError();
  if (user.authMethod === 'api_key')
    throw new InvalidRequestError(
      'A service account (auth_method "api_key") has no password: it logs in with its API keys',
    );
  return user;
}
