import type { Actor } from '../access/actor.js';
import { holds } from '../access/permissions.js';
import type { RequestContext } from '../audit/audit-log.js';
import {
  CannotDeleteLastPasswordError,
  InvalidCredentialsError,
  InvalidRequestError,
  MissingCredentialsError,
  TooManyPasswordsError,
  UnauthorizedActionError,
  UserNotExistError,
} from '../errors.js';
import { assertMayManage, assertMayPreHash, guardFor } from './account-access.js';
import { type AccountDeps, auditChange } from './account-deps.js';
import { mustGet, passwordUser } from './account-target.js';
import { MAX_PASSWORDS, matchPassword } from './match-password.js';
import {
  checkCandidate,
  hashOf,
  type NewPassword,
  type OwnProof,
  passwordWritten,
  proveOwnPassword,
} from './new-password.js';
import type { User } from './user.js';

/**
 * A user's passwords: whose a /v1/users/password request changes, replaced (a reset), a
 * second one added for a rotation, one of two removed, and expired by who manages the user.
 */
export class PasswordChanges {
  constructor(
    private readonly deps: Pick<
      AccountDeps,
      'users' | 'hasher' | 'policy' | 'lockout' | 'audit' | 'clock' | 'identities' | 'sessions' | 'clusterName'
    >,
  ) {}

  /**
   * Whose password a /v1/users/password request changes, and whether it may: another
   * user's for who may manage that user; one's own with the proof of the current password
   * (the request's Basic credentials, a token of a login of the last five minutes, or
   * `old_password`: proveOwnPassword). Without credentials, `username`
   * and `old_password` (how an expired password is replaced).
   */
  async target(
    actor: Actor | null,
    username: string | undefined,
    oldPassword: string | undefined,
    ctx: RequestContext,
  ): Promise<{ actor: Actor; target: User; proof?: OwnProof }> {
    const own = actor ? await mustGet(this.deps.users, actor.uid) : undefined;
    const named = username === undefined ? own : await this.deps.users.findByUsername(username);
    const another = actor && username !== undefined && named?.uid !== own?.uid;
    // Whether the name exists is told only to who may change others' passwords (and see every user).
    if (another && !holds(actor.rights, 'update_users_passwords')) {
      throw new UnauthorizedActionError(
        "Only an admin changes another user's passwords here; a user_manager sets one with PUT /v1/users/{uid}",
      );
    }
    if (another && !named) throw new UserNotExistError();
    if (actor && own && named && named.uid !== own.uid) {
      assertMayManage(actor, named);
      return { actor, target: named };
    }
    if (actor && own && (named?.uid === own.uid || username === undefined)) {
      passwordUser(own);
      return { actor, target: own, proof: await proveOwnPassword(this.deps, actor, own, oldPassword, ctx) };
    }
    if (username === undefined || oldPassword === undefined) {
      throw new MissingCredentialsError('Give "username" and "old_password" to change your own password');
    }
    const user = await this.deps.identities.confirmPassword(username, oldPassword, ctx);
    return { actor: { uid: user.uid, username: user.username, rights: user.rights, via: 'password' }, target: user };
  }

  /** All of the user's passwords become this one; lifts expiry and lock, ends tokens. */
  async replace(actor: Actor | null, target: User, password: NewPassword, ctx: RequestContext): Promise<void> {
    passwordUser(target);
    assertMayPreHash(actor, target, password);
    await checkCandidate(this.deps, target, password);
    await this.deps.users.replacePasswords(
      target.uid,
      await hashOf(this.deps, password, target),
      new Date(this.deps.clock()),
      guardFor(actor, target),
    );
    await passwordWritten(this.deps, actor, target, password, ctx);
  }

  /**
   * A second password beside the current one, for a rotation. One that someone else gives ends
   * the user's tokens; so does one added on a token's recent login alone (no password sent): a
   * token taken from its holder must not add a way in that nobody notices.
   */
  async add(
    actor: Actor | null,
    target: User,
    password: NewPassword,
    ctx: RequestContext,
    proof?: OwnProof,
  ): Promise<void> {
    passwordUser(target);
    assertMayPreHash(actor, target, password);
    // Beside a password the user goes on logging in with, a pre-hashed one would stay for ever.
    if (typeof password !== 'string')
      throw new InvalidRequestError(
        "A pre-hashed password replaces the user's passwords (PUT): it is not added beside them",
      );
    const credential = await this.deps.users.getCredential(target.uid);
    if ((credential?.passwords.length ?? 0) >= MAX_PASSWORDS) throw new TooManyPasswordsError(MAX_PASSWORDS);
    await checkCandidate(this.deps, target, password);
    const endTokens = actor?.uid !== target.uid || proof === 'recent_login';
    await this.deps.users.addPassword(
      target.uid,
      await hashOf(this.deps, password, target),
      new Date(this.deps.clock()),
      endTokens,
      guardFor(actor, target),
    );
    auditChange(this.deps.audit, ctx, actor, target, { event: 'password_add' });
  }

  /**
   * Removes the password `password` of the user; never the last one. Refused as the last one
   * whatever the password (that answer tells nothing of it); else the password is checked as a
   * login's is — throttled, counted toward the user's lockout — since every check is a guess.
   */
  async delete(actor: Actor | null, target: User, password: string, ctx: RequestContext): Promise<void> {
    passwordUser(target);
    const credential = await this.deps.users.getCredential(target.uid);
    const passwords = credential?.passwords ?? [];
    if (passwords.length <= 1) throw new CannotDeleteLastPasswordError();
    const notOne = () => new InvalidRequestError("old_password is not one of the user's passwords");
    try {
      await this.deps.identities.confirmPassword(target.username, password, ctx);
    } catch (err) {
      throw err instanceof InvalidCredentialsError ? notOne() : err;
    }
    const { stored: match } = await matchPassword(this.deps.hasher, passwords, password);
    if (!match) throw notOne();
    await this.deps.users.deletePassword(target.uid, match.id, guardFor(actor, target));
    auditChange(this.deps.audit, ctx, actor, target, { event: 'password_delete' });
  }

  /** The user must choose a new password at its next login. */
  async expire(actor: Actor | null, uid: number, ctx: RequestContext): Promise<User> {
    const target = passwordUser(await mustGet(this.deps.users, uid));
    assertMayManage(actor, target);
    await this.deps.users.expirePassword(uid, new Date(this.deps.clock()));
    auditChange(this.deps.audit, ctx, actor, target, { event: 'password_expire' });
    return mustGet(this.deps.users, uid);
  }
}
