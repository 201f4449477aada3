import type { AuthMethod, User } from './user.js';
import type { Role } from '../access/management.js';

/** What a user is made with, besides its password. */
export interface UserProfile {
  name: string | null;
  email: string | null;
  role: Role;
  roleUids: number[];
  authMethod: AuthMethod;
  emailAlerts: boolean;
  clusterEmailAlerts: boolean;
  bdbsEmailAlerts: string[] | null;
  /** auth_method 'certificate': the RFC 2253 subject its client certificate must have. */
  certificateSubjectLine?: string | null;
}

export interface NewUser extends UserProfile {
  /** None for a user who logs in with a client certificate. */
  passwordHash?: string;
  passwordIssueDate: Date;
}

export type ProfileChanges = Partial<UserProfile>;

export interface StoredPassword {
  id: number;
  hash: string;
}

/**
 * Reads and writes users; never sees password hashes. Every change that must end a user's
 * tokens (delete, a change of role or roles) raises the user's token epoch in the same
 * write. A lockout does not: the tokens were obtained with the right password, and ending
 * them would turn someone else's wrong guesses into a way to sign the user out.
 */
export interface UserStore {
  list(): Promise<User[]>;
  count(): Promise<number>;
  /** Whether the store has any local user: one row read, where count() scans them all. */
  hasUsers(): Promise<boolean>;
  /** Users whose rights include admin (their own role, or a role of theirs). */
  countAdmins(): Promise<number>;
  getByUid(uid: number): Promise<User | undefined>;
  /** The user whose name or email this is (regardless of case). */
  findByUsername(username: string): Promise<User | undefined>;
  /** The certificate user (auth_method 'certificate') whose certificate_subject_line this is. */
  findByCertificateSubject(subjectLine: string): Promise<User | undefined>;
  /** The directory user of this login, made at its first LDAP login; never a local user. */
  findDirectoryUser(login: string): Promise<User | undefined>;
  /**
   * The directory user of this login with these roles: made at its first login; when its
   * roles changed (its groups did), they are set and its tokens end in the same write.
   */
  upsertDirectoryUser(login: string, roleUids: readonly number[], at: Date): Promise<User>;
  /** Ends the tokens of every user of a realm (the directory was turned off, or its mappings changed). */
  revokeRealm(realm: 'ldap'): Promise<void>;
  /** Which of these logins another user than `exceptUid` has: 'name' or 'email' of the given ones. */
  takenLogins(logins: { name: string | null; email: string | null }, exceptUid?: number): Promise<'name' | 'email' | undefined>;
  delete(uid: number): Promise<boolean>;
  recordLogin(uid: number, at: Date): Promise<void>;
  expirePassword(uid: number, at: Date): Promise<void>;
  /** Throws UserAlreadyExistsError when a name or email is taken. */
  updateProfile(uid: number, changes: ProfileChanges): Promise<void>;
  /** Locks a user that is not locked at `now`; false when it already was. */
  lock(uid: number, until: Date, now: Date): Promise<boolean>;
  /** Lifts a lock; failures counted before `at` no longer count, in any process. */
  unlock(uid: number, at: Date): Promise<void>;
  /** Ends every token the user holds now. */
  revokeTokens(uid: number): Promise<void>;
  /** Ends the tokens of every user holding this role (its management changed). */
  revokeTokensOfRole(roleUid: number): Promise<void>;
}

/** The only access to password hashes, kept apart so that few paths can reach them. */
export interface CredentialStore {
  findCredential(username: string): Promise<{ user: User; passwords: StoredPassword[] } | undefined>;
  getCredential(uid: number): Promise<{ user: User; passwords: StoredPassword[] } | undefined>;
  /** A user's password hashes, oldest first. */
  passwordsOf(uid: number): Promise<StoredPassword[]>;
  /** Throws UserAlreadyExistsError (name_already_exists, email_already_exists) when a login is taken. */
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
