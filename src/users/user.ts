import type { Role } from '../access/management.js';
import type { RealmName } from '../access/realm-name.js';
import type { LevelScope } from '../access/resource-scopes.js';
import type { Policy } from '../policy/policy.js';

/** How a user logs in: a password (regular), a client certificate, SSO, or only its API keys (a service account: Tessera's). */
export const AUTH_METHODS = ['regular', 'certificate', 'sso', 'api_key'] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];

/** A user as the domain sees it. Password material is never part of it. */
export interface User {
  uid: number;
  /** The name it is known by in tokens and logs: its name, or its email when it has none. */
  username: string;
  /** A login (the product's `name`); unique regardless of case. */
  name: string | null;
  /** A login too (the product's `email`); unique regardless of case. */
  email: string | null;
  /** The lookup keys (usernameKey) of its name and email: every login that is this account. */
  logins: readonly string[];
  /** The roles given to the user (the one source of its rights), each with a management level. */
  roleUids: number[];
  /** What the user may do: the levels of its roles, highest first. */
  rights: Role[];
  /** The levels of `rights` that its roles limit to some databases (a token's `resources`); [] when none is. */
  resources: LevelScope[];
  authMethod: AuthMethod;
  emailAlerts: boolean;
  clusterEmailAlerts: boolean;
  /** Database uids to send alerts of (or ["all"]); null when never set. */
  bdbsEmailAlerts: string[] | null;
  passwordIssueDate: Date;
  /** When set and reached, the password has expired (forced by an administrator). */
  passwordExpiresAt: Date | null;
  /** Locked by the lockout policy until then (far future: until an admin unlocks). */
  lockedUntil: Date | null;
  /** Failed logins before this moment no longer count (set by an unlock or a password reset). */
  lockResetAt: Date | null;
  /** Tokens issued at an older epoch are revoked. */
  tokenEpoch: number;
  createdAt: Date;
  lastLogin: Date | null;
  /** The way in that proves who it is (its password here, the directory, its client certificate, SSO): its auth_method's, or the directory's for a directory user. */
  realm: RealmName;
  /** auth_method 'certificate': the RFC 2253 subject its client certificate must have. */
  certificateSubjectLine: string | null;
  /** A directory user: the directory's entry it is (its DN as normalizeDn writes it); null before its first login since 0005. */
  directoryKey: string | null;
  /** It has a second factor (an authenticator app, a passkey): a password alone never acts for it. */
  mfa: boolean;
  /** A role of it requires a second factor (Tessera's role field mfa_required). */
  mfaRequired: boolean;
}

/** The realm of a user kept here by its auth_method, or of one the LDAP directory keeps (made at its first login; its password is never here). */
export function realmOf(inDirectory: boolean, authMethod: AuthMethod): RealmName {
  if (inDirectory) return 'ldap';
  if (authMethod === 'api_key') return 'api_key';
  return authMethod === 'certificate' ? 'certificate' : authMethod === 'sso' ? 'sso' : 'local';
}

/** Whether two lists of role uids give the same roles (in any order). */
export function sameRoles(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

/** "Locked until an admin unlocks" is stored as this moment. */
export const LOCKED_UNTIL_UNLOCKED = new Date('9999-12-31T23:59:59.999Z');

export const USER_STATUSES = ['active', 'locked', 'password_expired'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

const DAY_MS = 86_400_000;

export function isPasswordExpired(user: User, policy: Policy, now: Date): boolean {
  // A directory user's password lives in the directory; a certificate or SSO user has none.
  if (user.realm !== 'local') return false;
  const t = now.getTime();
  if (user.passwordExpiresAt !== null && user.passwordExpiresAt.getTime() <= t) return true;
  const days = policy.password_expiration_duration;
  return days > 0 && user.passwordIssueDate.getTime() + days * DAY_MS <= t;
}

/** Seconds until a lock ends by itself; undefined when only an admin can lift it. */
export function unlocksInSeconds(lockedUntil: Date, now: Date): number | undefined {
  return lockedUntil.getTime() >= LOCKED_UNTIL_UNLOCKED.getTime()
    ? undefined
    : Math.max(1, Math.ceil((lockedUntil.getTime() - now.getTime()) / 1000));
}

/**
 * The one rule of a password and a second factor, given the user: a login asks for the second
 * step ('challenge') of a user who has one; gives a token for enrolling only ('enrol') to a user
 * a role of which requires one it has not got; undefined: the password suffices. Any other
 * request with a password is refused in both cases (a password alone never acts for them).
 */
export function secondFactorOf(user: User): 'challenge' | 'enrol' | undefined {
  return user.mfa ? 'challenge' : user.mfaRequired ? 'enrol' : undefined;
}

export function isLocked(user: User, now: Date): boolean {
  return user.lockedUntil !== null && user.lockedUntil.getTime() > now.getTime();
}

export function userStatus(user: User, policy: Policy, now: Date): UserStatus {
  if (isLocked(user, now)) return 'locked';
  return isPasswordExpired(user, policy, now) ? 'password_expired' : 'active';
}
