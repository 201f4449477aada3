import type { Role, User } from './user.js';

export interface NewUser {
  username: string;
  name: string | null;
  role: Role;
  passwordHash: string;
  passwordIssueDate: Date;
}

export interface StoredPassword {
  id: number;
  hash: string;
}

/**
 * Reads and writes users; never sees password hashes. Every change that must end a user's
 * tokens (delete, role change) raises the user's token epoch in the same write. A lockout
 * does not: the tokens were obtained with the right password, and ending them would turn
 * someone else's wrong guesses into a way to sign the user out.
 */
export interface UserStore {
  list(): Promise<User[]>;
  count(): Promise<number>;
  countByRole(role: Role): Promise<number>;
  getByUid(uid: number): Promise<User | undefined>;
  findByUsername(username: string): Promise<User | undefined>;
  delete(uid: number): Promise<boolean>;
  recordLogin(uid: number, at: Date): Promise<void>;
  expirePassword(uid: number, at: Date): Promise<void>;
  updateProfile(uid: number, changes: { name?: string | null; role?: Role }): Promise<void>;
  /** Locks a user that is not locked at `now`; false when it already was. */
  lock(uid: number, until: Date, now: Date): Promise<boolean>;
  /** Lifts a lock; failures counted before `at` no longer count, in any process. */
  unlock(uid: number, at: Date): Promise<void>;
  /** Ends every token the user holds now. */
  revokeTokens(uid: number): Promise<void>;
}

/** The only access to password hashes, kept apart so that few paths can reach them. */
export interface CredentialStore {
  findCredential(username: string): Promise<{ user: User; passwords: StoredPassword[] } | undefined>;
  getCredential(uid: number): Promise<{ user: User; passwords: StoredPassword[] } | undefined>;
  /** Throws UserAlreadyExistsError when the normalized username is taken. */
  create(user: NewUser): Promise<User>;
  /** One new password instead of all: new issue date, expiry and lock lifted, tokens ended. */
  replacePasswords(uid: number, passwordHash: string, issuedAt: Date): Promise<void>;
  /** A further password that works beside the others (rotation). */
  addPassword(uid: number, passwordHash: string, at: Date): Promise<void>;
  /** Removes one password and ends the user's tokens. */
  deletePassword(uid: number, passwordId: number): Promise<void>;
  /** The same password hashed with new parameters. */
  replaceHash(passwordId: number, passwordHash: string): Promise<void>;
}
