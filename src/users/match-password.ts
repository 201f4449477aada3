import { performance } from 'node:perf_hooks';
import type { Deadline } from '../deadline.js';
import type { PasswordHasher } from './password-hasher.js';
import type { StoredPassword } from './user-store.js';

/** Passwords a user may hold at once: the current one and its successor during a rotation. */
export const MAX_PASSWORDS = 2;

export interface PasswordMatch {
  /** The one of the user's passwords that the given password is; undefined when none. */
  stored?: StoredPassword;
  /**
   * For a failure: how long it must still wait to take as long as a wrong password for a
   * user with MAX_PASSWORDS passwords — the verifications it did not do, at the time its
   * own took. A wait, not work: no failure costs more CPU than its verifications.
   */
  shortfallMs: number;
}

/**
 * Checks `password` against a user's passwords. For a user that does not exist
 * (`passwords` undefined) it does the work of one verification all the same, so that an
 * unknown name and a wrong password cost alike; with `shortfallMs`, a user with one password
 * and a user in the middle of a rotation do too.
 */
export async function matchPassword(
  hasher: PasswordHasher,
  passwords: readonly StoredPassword[] | undefined,
  password: string,
  deadline?: Deadline,
): Promise<PasswordMatch> {
  const started = performance.now();
  let verified = 0;
  if (!passwords) {
    await hasher.verifyDummy(password, deadline);
    verified = 1;
  } else {
    for (const stored of passwords) {
      verified++;
      if (await hasher.verify(stored.hash, password, deadline)) return { stored, shortfallMs: 0 };
    }
  }
  const each = verified === 0 ? 0 : (performance.now() - started) / verified;
  return { shortfallMs: Math.max(0, MAX_PASSWORDS - verified) * each };
}
