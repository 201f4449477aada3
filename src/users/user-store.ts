import type { AuthMethod, User } from './user.js';

/** What a user is made with, besides its password. */
export interface UserProfile {
  name: string | null;
  email: string | null;
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

/** A password that replaces all of a user's, hashed before the write that stores it. */
export interface NewPasswordHash {
  hash: string;
  issuedAt: Date;
}

export interface StoredPassword {
  id: number;
  hash: string;
}

/** A directory user as its realm found it: the entry it is, the name it was first given with, its roles now. */
export interface DirectoryAccount {
  /** The entry's DN as normalizeDn writes it. */
  directoryKey: string;
  /** How the user typed its name at its first login, canonical (canonicalName). */
  name: string;
  roleUids: readonly number[];
  /** A row made before 0005 that this login's name found: it becomes this entry's. */
  adopt?: number;
}

/**
 * Who may change a user, asked again of the user as the store has it, in the transaction
 * that changes it: a change made meanwhile on another node (a promotion to admin) counts.
 */
export type UserGuard = (current: User) => void;

/**
 * Reads and writes users; never sees password hashes. Every change that must end a user's
 * tokens (delete, a change of role or roles, of what proves who it is) raises the user's
 * token epoch in the same write, and is announced (`tokensRevoked`, then `userChanged`)
 * once committed. A lockout does not: the tokens were obtained with the right credentials,
 * and ending them would turn someone else's wrong guesses into a way to sign the user out.
 */
export interface UserStore {
  list(): Promise<User[]>;
  count(): Promise<number>;
  /** Whether the store has any local user: one row read, where count() scans them all. */
  hasUsers(): Promise<boolean>;
  /** Users whose rights include admin (their own role, or a role of theirs). */
  countAdmins(): Promise<number>;
  getByUid(uid: number): Promise<User | undefined>;
  /** The one account whose name or email this login is, in any spelling (usernameKey), whatever its realm. */
  findByUsername(username: string): Promise<User | undefined>;
  /** The certificate user (auth_method 'certificate') whose certificate_subject_line this is. */
  findByCertificateSubject(subjectLine: string): Promise<User | undefined>;
  /** The directory user that is this directory entry. */
  findByDirectoryKey(directoryKey: string): Promise<User | undefined>;
  /**
   * The directory user of this entry with these roles: made at its first login (undefined
   * when its name is another account's); when its roles changed (its groups did), they are
   * set and its tokens end in the same write.
   */
  upsertDirectoryUser(account: DirectoryAccount, at: Date): Promise<User | undefined>;
  /** Ends the tokens of every directory user (its settings or mappings changed). */
  revokeDirectoryUsers(): Promise<void>;
  /** Ends the tokens of every user a client certificate may prove — certificate users, and directory users (cba) — when the trust in client certificates changed. */
  revokeCertificateUsers(): Promise<void>;
  /** Ends every user's tokens (and sessions): the end of every session of the cluster. */
  revokeEveryone(): Promise<void>;
  /** Ends the tokens of every SSO user and every user whose last sign-in was by SSO (what let them in changed: SSO off, another identity provider). */
  revokeSsoUsers(): Promise<void>;
  /** Ends the tokens of every user who is not an admin and signs in with a password kept here (SSO became required of them). */
  revokePasswordUsers(): Promise<void>;
  /** Which of these logins another user than `exceptUid` has: 'name' or 'email' of the given ones. */
  takenLogins(
    logins: { name: string | null; email: string | null },
    exceptUid?: number,
  ): Promise<'name' | 'email' | undefined>;
  delete(uid: number, guard?: UserGuard): Promise<boolean>;
  recordLogin(uid: number, at: Date): Promise<void>;
  expirePassword(uid: number, at: Date): Promise<void>;
  /**
   * Throws UserAlreadyExistsError when a name, email or certificate subject is taken; new rights
   * or a new certificate subject end the tokens (never the last admin's rights, 406). What
   * changes is decided on the user as the transaction reads it.
   */
  updateProfile(uid: number, changes: ProfileChanges, guard?: UserGuard): Promise<void>;
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
  /** updateProfile and replacePasswords in one transaction: one request that changes both writes both or neither. */
  updateProfileAndPassword(
    uid: number,
    changes: ProfileChanges,
    password: NewPasswordHash,
    guard?: UserGuard,
  ): Promise<void>;
  /** One new password instead of all: new issue date, expiry and lock lifted, tokens ended. */
  replacePasswords(uid: number, passwordHash: string, issuedAt: Date, guard?: UserGuard): Promise<void>;
  /** A further password that works beside the others (rotation); `revoke`: and the user's tokens end (someone else gave it). */
  addPassword(uid: number, passwordHash: string, at: Date, revoke?: boolean, guard?: UserGuard): Promise<void>;
  /** Removes one password and ends the user's tokens. */
  deletePassword(uid: number, passwordId: number, guard?: UserGuard): Promise<void>;
  /** The same password hashed with new parameters. */
  replaceHash(passwordId: number, passwordHash: string): Promise<void>;
  /**
   * A password account becomes an SSO account (its person's first SSO sign-in): its passwords
   * gone, its tokens and sessions ended, in one transaction. Refused (unauthorized_action) when
   * it is an admin's by then.
   */
  moveToSso(uid: number): Promise<User>;
}
