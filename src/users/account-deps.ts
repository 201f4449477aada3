import type { Actor } from '../access/actor.js';
import type { Role } from '../access/management.js';
import { type AuditLog, type AuditRecord, actorOf, type RequestContext } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import type { PolicyService } from '../policy/policy-service.js';
import type { PasswordHasher } from './password-hasher.js';
import type { User } from './user.js';
import type { CredentialStore, UserStore } from './user-store.js';

/** Who may prove to be whom: the realm chain, as the accounts see it. */
export interface Identities {
  /** A user's current password, confirmed with a login's guards (throttling, lockout); an expired one confirms too. */
  confirmPassword(username: string, password: string, ctx: RequestContext): Promise<User>;
  /** The way in (other than this store) that knows somebody by this name who has no account yet. */
  nameTaken(name: string): Promise<string | undefined>;
}

/** A session as the sessions keep it (their store fits), for what the accounts ask of it: when its login proved who its user is. */
export interface SessionRecords {
  get(sid: string): Promise<{ uid: number; realm: string; startedAt: Date; endedAt: Date | null } | undefined>;
}

/** What the use cases of users are given; each takes the part it uses. */
export interface AccountDeps {
  users: UserStore & CredentialStore;
  /** The roles there are, for the management levels that role_uids give. */
  roles: { list(): Promise<readonly { uid: number; management: Role }[]> };
  hasher: PasswordHasher;
  policy: PolicyService;
  /** Lifts a user's lock and forgets their failed logins (the guard's Lockout). */
  lockout: { unlock(user: User, what?: 'all' | 'passwords'): Promise<void> };
  audit: AuditLog;
  clock: Clock;
  identities: Identities;
  /** The sessions: a token of one whose login is recent stands in for the current password (proveOwnPassword). */
  sessions: SessionRecords;
  /** The cluster's name as set (GET /v1/cluster), "" when it is not: the "clustername" of the product's pre-hashed passwords. */
  clusterName(): Promise<string>;
}

/** The one audit line of a change made to `target`: `actor` is whoever asked, null for the local CLI. */
export function auditChange(
  audit: AuditLog,
  ctx: RequestContext,
  actor: Actor | null,
  target: User,
  record: Omit<AuditRecord, 'outcome'>,
): void {
  audit.record(ctx, {
    outcome: 'success',
    ...actorOf(actor),
    uid: target.uid,
    username: target.username,
    ...record,
  });
}
