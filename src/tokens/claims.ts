import type { Role } from '../access/management.js';
import type { LevelScope } from '../access/resource-scopes.js';

/** What a Tessera token says. `sub` is the uid as a string, `exp` = `iat` + ttl. */
export interface TokenClaims {
  iss: string;
  /** Who the token is for: the public URL unless --audience says otherwise. */
  aud: string | string[];
  sub: string;
  uid: number;
  username: string;
  roles: Role[];
  /**
   * The levels of `roles` that the user's roles limit to some resources (the product's role
   * `resources`, 8.2), merged over its roles: `{management, type, uids}`. A level of `roles`
   * that no entry names applies to every resource. Absent when none is limited.
   */
  resources?: LevelScope[];
  iat: number;
  exp: number;
  jti: string;
  /** The user's token epoch at issue; a later revocation raises it and ends this token. */
  ver: number;
  /** The session (one login and its refreshes) it belongs to; absent on tokens issued before sessions. */
  sid?: string;
  /** A web console's session: idled out by the server after cm_session_timeout_minutes. */
  cm?: true;
  /** The API key its login presented: the token has that key's rights, and ends with it (its session). */
  akid?: string;
  /** That key's allowed_cidrs: Tessera takes the token from those addresses only. */
  acidr?: string[];
  /** When its login's second factor was proven (seconds since the epoch; kept by refresh): a change of one's own factors asks for a recent one. */
  mfa_at?: number;
  /** A token for enrolling a second factor only (a role requires one that the user has not got): refused elsewhere (403 mfa_enrolment_required). */
  mfa_enrol?: true;
}

export const TTL_DEFAULT_SECONDS = 300;
export const TTL_MIN_SECONDS = 1;
export const TTL_MAX_SECONDS = 86_400;
