import type { Deadline } from '../deadline.js';
import type { PasswordHasher } from './password-hasher.js';
import type { StoredPassword } from './user-store.js';

/**
 * The one of a user's passwords that `password` is, or undefined. For a user that does
 * not exist (`passwords` undefined) it does the work of one verification all the same, so
 * that an unknown name and a wrong password cost alike.
 */
export async function matchPassword(
  hasher: PasswordHasher,
  passwords: readonly StoredPassword[] | undefined,
  password: string,
  deadline?: Deadline,
): Promise<StoredPassword | undefined> {
  if (!passwords) return void (await hasher.verifyDummy(password, deadline));
  for (const p of passwords) if (await hasher.verify(p.hash, password, deadline)) return p;
  return undefined;
}
