import type { Role, User } from './user.js';

export interface NewUser {
  username: string;
  name: string | null;
  role: Role;
  passwordHash: string;
  passwordIssueDate: Date;
}

/** Reads and writes users; never sees password hashes. */
export interface UserStore {
  list(): Promise<User[]>;
  count(): Promise<number>;
  getByUid(uid: number): Promise<User | undefined>;
  findByUsername(username: string): Promise<User | undefined>;
  delete(uid: number): Promise<boolean>;
  recordLogin(uid: number, at: Date): Promise<void>;
  expirePassword(uid: number, at: Date): Promise<void>;
}

/** The only access to password hashes, kept apart so that few paths can reach them. */
export interface CredentialStore {
  findCredential(username: string): Promise<{ user: User; passwordHash: string } | undefined>;
  /** Throws UserAlreadyExistsError when the normalized username is taken. */
  create(user: NewUser): Promise<User>;
  /** A new password: new hash, new issue date, any forced expiry cleared. */
  setPassword(uid: number, passwordHash: string, issuedAt: Date): Promise<void>;
  /** The same password hashed with new parameters. */
  replaceHash(uid: number, passwordHash: string): Promise<void>;
}
