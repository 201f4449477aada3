import type { Actor } from '../access/actor.js';
import type { RequestContext } from '../audit/audit-log.js';
import { InvalidRequestError, NewPasswordSameAsCurrentError } from '../errors.js';
import { type AccountDeps, auditChange } from './account-deps.js';
import { matchPassword } from './match-password.js';
import { checkNewPassword } from './password-rules.js';
import { checkPreHashed, type PreHashed, preHashedRecord } from './pre-hashed-password.js';
import type { User } from './user.js';

/** `password_hash_method`: 1 (or "1", as objects/user.md writes it): the password is the product's pre-hashed one. */
export type PasswordHashMethod = 1 | '1';

/** A new password: as typed, or pre-hashed by the product's recipe (a user moved in from a cluster). */
export type NewPassword = string | PreHashed;

/** The password a request gives, read with its password_hash_method; `clusterName`: of the pre-hashed one's recipe, when not this cluster's. */
export function newPassword(
  password: string,
  method: PasswordHashMethod | undefined,
  clusterName?: string,
): NewPassword {
  return method === undefined
    ? password
    : { ...checkPreHashed(password), ...(clusterName !== undefined && { clusterName }) };
}

/** What is stored of a new password: its argon2id hash, or the product's pre-hashed one until its first login. */
export async function hashOf(
  deps: Pick<AccountDeps, 'hasher' | 'clusterName'>,
  password: NewPassword,
  logins: { name: string | null; email: string | null },
): Promise<string> {
  return typeof password === 'string'
    ? deps.hasher.hash(password)
    : preHashedRecord(password, logins, await clusterOf(deps, password));
}

/** The clustername of a pre-hashed password's recipe. Every node must make the same record: a name set for the cluster, not each node's host. */
export async function clusterOf(deps: Pick<AccountDeps, 'clusterName'>, password: PreHashed): Promise<string> {
  const cluster = password.clusterName ?? (await deps.clusterName());
  if (cluster === '')
    throw new InvalidRequestError(
      'Set the cluster\'s name first (PUT /v1/cluster {"name": …}): the clustername the pre-hashed password was made with',
    );
  return cluster;
}

/** The policy's rules and "not the current one", for a password whose text is here; a pre-hashed one has none to check. */
export async function checkCandidate(
  deps: Pick<AccountDeps, 'users' | 'hasher' | 'policy' | 'clusterName'>,
  target: User,
  password: NewPassword,
  logins: { name: string | null; email: string | null } = target,
): Promise<void> {
  if (typeof password !== 'string') {
    await clusterOf(deps, password);
    return;
  }
  await checkNewPassword(password, logins, await deps.policy.get());
  const credential = await deps.users.getCredential(target.uid);
  if ((await matchPassword(deps.hasher, credential?.passwords ?? [], password)).stored)
    throw new NewPasswordSameAsCurrentError();
}

/** After a new password is stored: the lockout's counters forgotten, and the change audited. */
export async function passwordWritten(
  deps: Pick<AccountDeps, 'lockout' | 'audit'>,
  actor: Actor | null,
  target: User,
  password: NewPassword,
  ctx: RequestContext,
): Promise<void> {
  // A user's own change forgets its passwords' failures only; who manages it (or the local CLI) lifts everything.
  await deps.lockout.unlock(target, actor !== null && actor.uid === target.uid ? 'passwords' : 'all');
  // Said, so that passwords set past the rules can be found.
  auditChange(deps.audit, ctx, actor, target, {
    event: 'password_change',
    ...(typeof password !== 'string' && { changes: ['password_hash_method'] }),
  });
}

/**
 * How long after its login a session's tokens stand in for the current password: the login
 * proved this very password this recently (a login by the user's password here; an SSO or
 * certificate sign-in proves no password, and does not count).
 */
export const RECENT_LOGIN_SECONDS = 300;

/** How a user proved its current password: its request's credentials, `old_password`, or a token of a recent login. */
export type OwnProof = 'credentials' | 'old_password' | 'recent_login';

/**
 * A user changing its own password proves the current one: its request's own password did;
 * else a token whose session's login is at most RECENT_LOGIN_SECONDS old (the product's docs
 * send `new_password` alone; a refresh keeps its session's start); else `oldPassword` must.
 * An `oldPassword` given is always checked.
 */
export async function proveOwnPassword(
  deps: Pick<AccountDeps, 'identities' | 'sessions' | 'clock'>,
  actor: Actor,
  user: User,
  oldPassword: string | undefined,
  ctx: RequestContext,
): Promise<OwnProof> {
  if (actor.via === 'password') return 'credentials'; // the request's own credentials were just verified
  if (oldPassword !== undefined) {
    await deps.identities.confirmPassword(user.username, oldPassword, ctx);
    return 'old_password';
  }
  // An older token does not prove who holds the keyboard now (OWASP ASVS 2.1.6).
  if (await loggedInRecently(deps, actor, user)) return 'recent_login';
  throw new InvalidRequestError(
    `To change your own password with a token, its login must be at most ${RECENT_LOGIN_SECONDS / 60} minutes old: log in again and use the new token, or send old_password (your current password)`,
  );
}

/** Whether the actor's token belongs to a live session of the user that began with a login in the last RECENT_LOGIN_SECONDS. */
async function loggedInRecently(
  deps: Pick<AccountDeps, 'sessions' | 'clock'>,
  actor: Actor,
  user: User,
): Promise<boolean> {
  const sid = actor.via === 'token' ? actor.token?.sid : undefined;
  if (sid === undefined) return false; // a token issued before sessions: its login is unknown
  const session = await deps.sessions.get(sid);
  if (!session || session.uid !== user.uid || session.endedAt !== null) return false;
  // Its login proved this password: not an SSO sign-in (an admin keeps a password beside it) nor a certificate.
  if (session.realm !== user.realm) return false;
  // A start ahead of this node's clock (another node's login) is recent.
  return deps.clock() - session.startedAt.getTime() <= RECENT_LOGIN_SECONDS * 1000;
}
