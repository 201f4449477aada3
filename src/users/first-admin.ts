import { randomUUID } from 'node:crypto';
import { CLI_CONTEXT } from '../audit/audit-log.js';
import { DomainError, PasswordNotComplexError, UserAlreadyExistsError } from '../errors.js';
import { generatePassword } from './generate-password.js';
import type { UnshownPasswordMark } from './unshown-password-mark.js';
import type { UserCreation } from './user-creation.js';
import type { UserStore } from './user-store.js';

export const DEFAULT_ADMIN_USERNAME = 'admin@tessera.local';

/** The given first admin's name or password was refused; the message names the variable. */
export class FirstAdminRefusedError extends Error {}

export type FirstAdminResult =
  | {
      created: false;
      /** A first admin whose generated password a start that died never showed. */
      unshownPasswordOf?: string;
    }
  | {
      created: true;
      username: string;
      generatedPassword?: string;
      /** Call once the generated password has been shown. */
      shown(): Promise<void>;
    };

/**
 * On an empty store, creates the first admin from the given credentials, or, when none are
 * given, admin@tessera.local with a random password that the caller shows once. A mark in
 * the store, set before the admin is made and cleared when the caller has shown the
 * password, lets a later start say that a start which died in between never showed it.
 * The mark ends too when that admin logs in or gets another password.
 */
export async function ensureFirstAdmin(
  users: UserStore,
  accounts: Pick<UserCreation, 'create'>,
  mark: UnshownPasswordMark,
  given: { username?: string; password?: string },
): Promise<FirstAdminResult> {
  // Not count(): on a store of a million users it reads every row, and the pages it reads stay in the cache (~20 MB of RSS).
  if (await users.hasUsers()) return { created: false, unshownPasswordOf: await stillUnshown(users, mark) };
  const username = given.username || DEFAULT_ADMIN_USERNAME;
  if (given.password) {
    const created = await create(accounts, username, given.password).catch((err: unknown) => {
      if (!(err instanceof DomainError)) throw err;
      const variable = err instanceof PasswordNotComplexError ? 'TESSERA_ADMIN_PASSWORD' : 'TESSERA_ADMIN_USERNAME';
      throw new FirstAdminRefusedError(`${variable} was refused for the first admin: ${err.message}`);
    });
    return created ? { created: true, username, shown: async () => {} } : { created: false };
  }
  const generatedPassword = generatePassword();
  const nonce = randomUUID();
  await mark.put({ username, nonce });
  const user = await create(accounts, username, generatedPassword);
  if (!user) {
    await mark.clear(nonce); // another node's admin, and its password to show
    return { created: false };
  }
  await mark.put({ username, nonce, issuedAt: user.passwordIssueDate.toISOString() });
  return { created: true, username, generatedPassword, shown: () => mark.clear(nonce) };
}

async function create(accounts: Pick<UserCreation, 'create'>, username: string, password: string) {
  try {
    return await accounts.create(null, { username, password, role: 'admin' }, CLI_CONTEXT);
  } catch (err) {
    // Another node starting on the same empty store made it first.
    if (err instanceof UserAlreadyExistsError) return undefined;
    throw err;
  }
}

/** The username of a first admin whose generated password was never shown, if there is one. */
async function stillUnshown(users: UserStore, mark: UnshownPasswordMark): Promise<string | undefined> {
  const unshown = await mark.get();
  if (!unshown) return undefined;
  const user = await users.findByUsername(unshown.username);
  const untouched =
    user !== undefined &&
    user.lastLogin === null &&
    (unshown.issuedAt === undefined || user.passwordIssueDate.toISOString() === unshown.issuedAt);
  if (untouched) return user.username;
  await mark.clear(unshown.nonce);
  return undefined;
}
