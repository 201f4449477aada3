import { CLI_CONTEXT } from '../audit/audit-log.js';
import { UserAlreadyExistsError } from '../errors.js';
import type { AccountService } from './account-service.js';
import { generatePassword } from './generate-password.js';
import type { UserStore } from './user-store.js';

export const DEFAULT_ADMIN_USERNAME = 'admin@tessera.local';

export type FirstAdminResult =
  | { created: false }
  | { created: true; username: string; generatedPassword?: string };

/**
 * On an empty store, creates the first admin from the given credentials, or, when none are
 * given, admin@tessera.local with a random password that the caller shows once.
 */
export async function ensureFirstAdmin(
  users: UserStore,
  accounts: AccountService,
  given: { username?: string; password?: string },
): Promise<FirstAdminResult> {
  if ((await users.count()) > 0) return { created: false };
  const username = given.username || DEFAULT_ADMIN_USERNAME;
  const generatedPassword = given.password ? undefined : generatePassword();
  const password = given.password || generatedPassword!;
  try {
    await accounts.create(null, { username, password, role: 'admin', name: 'Administrator' }, CLI_CONTEXT);
  } catch (err) {
    // Another node starting on the same empty store made it first.
    if (err instanceof UserAlreadyExistsError) return { created: false };
    throw err;
  }
  return { created: true, username, generatedPassword };
}
