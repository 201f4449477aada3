import { performance } from 'node:perf_hooks';
import type { Deadline } from '../deadline.js';
import type { PasswordHasher } from './password-hasher.js';
import type { StoredPassword } from './user-store.js';

/** Passwords a user may hold at once: the current one and its successor during a rotation. */
export const MAX_PASSWORDS = 2;

export interface PasswordMatch {
  /** The one of the user's passwords that the given password is; undefined when none. */
  stored?: StoredPassword;
  /** The time one of its verifications took (waiting for a thread included): what a failure's budget is made of. */
  eachMs: number;
}

/**
 * Checks `password` against a user's passwords. For a user that does not exist
 * (`passwords` undefined) it does the work of one verification all the same, so that an
 * unknown name and a wrong password cost alike; with `failureBudgetMs`, a user with one
 * password and a user in the middle of a rotation take alike too.
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
      if (await hasher.verify(stored.hash, password, deadline))
        return { stored, eachMs: (performance.now() - started) / verified };
    }
  }
  return { eachMs: verified === 0 ? 0 : (performance.now() - started) / verified };
}

/**
 * How long a refused password takes in all, from the start of its check: MAX_PASSWORDS
 * verifications at the time its own took, with a margin. Every failure — an unknown name
 * (one dummy verification), one password, a rotation's two — waits until then, so that none
 * is told apart by its time; a rotation's two verifications and the lookups around them
 * take a little more than twice one, and end within the budget too.
 */
export function failureBudgetMs(eachMs: number): number {
  return MAX_PASSWORDS * eachMs * 1.25;
}
