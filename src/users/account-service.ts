import type { AuditLog, AuditRecord, RequestContext } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import {
  CannotDeleteLastPasswordError,
  EmailAlreadyExistsError,
  InvalidRequestError,
  LastAdminError,
  NewPasswordSameAsCurrentError,
  TooManyPasswordsError,
  UnauthorizedActionError,
  UserAlreadyExistsError,
  UserNotFoundError,
} from '../errors.js';
import type { PolicyService } from '../policy/policy-service.js';
import { MAX_PASSWORDS, matchPassword } from './match-password.js';
import type { PasswordHasher } from './password-hasher.js';
import { checkNewPassword } from './password-rules.js';
import { isRole, ROLES, type Role, type User } from './user.js';
import type { CredentialStore, UserStore } from './user-store.js';
import { validateNewUsername } from './username.js';

/** Who asks for a change (a request's Principal fits); null for the local CLI. */
export interface Actor {
  uid: number;
  role: Role;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface NewAccount {
  username: string;
  password: string;
  role: string;
  name?: string | null;
}

export interface AccountDeps {
  users: UserStore & CredentialStore;
  hasher: PasswordHasher;
  policy: PolicyService;
  /** Lifts a user's lock and forgets their failed logins (the guard's Lockout). */
  lockout: { unlock(user: User): Promise<void> };
  audit: AuditLog;
  clock: Clock;
}

/**
 * Users and their passwords: who may change what, the policy on new passwords, the last
 * admin, and one audit line per change. `actor` is whoever asks; null for the local CLI,
 * which has the data directory and so every right.
 */
export class AccountService {
  constructor(private readonly deps: AccountDeps) {}

  async create(actor: Actor | null, input: NewAccount, ctx: RequestContext): Promise<User> {
    const username = validateNewUsername(input.username);
    if (!isRole(input.role)) throw new InvalidRequestError(`role must be one of ${ROLES.join(', ')}`);
    this.assertMayGrant(actor, input.role);
    await checkNewPassword(input.password, username, await this.deps.policy.get());
    try {
      const user = await this.deps.users.create({
        username,
        name: input.name ?? null,
        role: input.role,
        passwordHash: await this.deps.hasher.hash(input.password),
        passwordIssueDate: new Date(this.deps.clock()),
      });
      this.audit(ctx, actor, user, { event: 'user_create', changes: ['username', 'role', 'password'] });
      return user;
    } catch (err) {
      if (err instanceof UserAlreadyExistsError && EMAIL.test(username)) throw new EmailAlreadyExistsError();
      throw err;
    }
  }

  async update(
    actor: Actor | null,
    uid: number,
    changes: { name?: string | null; role?: string; password?: string },
    ctx: RequestContext,
  ): Promise<User> {
    const target = await this.mustGet(uid);
    const self = actor?.uid === uid;
    if (!self) this.assertMayManage(actor, target);
    if (changes.role !== undefined && changes.role !== target.role) {
      if (self && !isManager(actor)) throw new UnauthorizedActionError('You may not change your own role');
      if (!isRole(changes.role)) throw new InvalidRequestError(`role must be one of ${ROLES.join(', ')}`);
      this.assertMayGrant(actor, changes.role);
      if (target.role === 'admin' && (await this.deps.users.countByRole('admin')) <= 1) {
        throw new LastAdminError('change_last_admin_role_not_allowed');
      }
    }
    if (changes.password !== undefined) await this.replacePasswords(actor, target, changes.password, ctx);
    const profile = { name: changes.name, role: changes.role as Role | undefined };
    await this.deps.users.updateProfile(uid, profile);
    const changed = Object.keys(changes).filter((k) => k !== 'password' && changes[k as keyof typeof changes] !== undefined);
    if (changed.length > 0) this.audit(ctx, actor, target, { event: 'user_update', changes: changed });
    return this.mustGet(uid);
  }

  async delete(actor: Actor | null, uid: number, ctx: RequestContext): Promise<void> {
    const target = await this.mustGet(uid);
    this.assertMayManage(actor, target);
    if (target.role === 'admin' && (await this.deps.users.countByRole('admin')) <= 1) {
      throw new LastAdminError('delete_last_admin_not_allowed');
    }
    await this.deps.users.delete(uid);
    this.audit(ctx, actor, target, { event: 'user_delete' });
  }

  /** All of the user's passwords become this one; lifts expiry and lock, ends tokens. */
  async replacePasswords(actor: Actor | null, target: User, password: string, ctx: RequestContext): Promise<void> {
    await this.checkCandidate(target, password);
    await this.deps.users.replacePasswords(target.uid, await this.deps.hasher.hash(password), new Date(this.deps.clock()));
    await this.deps.lockout.unlock(target);
    this.audit(ctx, actor, target, { event: 'password_change' });
  }

  /** A second password beside the current one, for a rotation. */
  async addPassword(actor: Actor | null, target: User, password: string, ctx: RequestContext): Promise<void> {
    const credential = await this.deps.users.getCredential(target.uid);
    if ((credential?.passwords.length ?? 0) >= MAX_PASSWORDS) throw new TooManyPasswordsError(MAX_PASSWORDS);
    await this.checkCandidate(target, password);
    await this.deps.users.addPassword(target.uid, await this.deps.hasher.hash(password), new Date(this.deps.clock()));
    this.audit(ctx, actor, target, { event: 'password_add' });
  }

  /** Removes the password `password` of the user; never the last one. */
  async deletePassword(actor: Actor | null, target: User, password: string, ctx: RequestContext): Promise<void> {
    const credential = await this.deps.users.getCredential(target.uid);
    const passwords = credential?.passwords ?? [];
    const { stored: match } = await matchPassword(this.deps.hasher, passwords, password);
    if (!match) throw new InvalidRequestError('old_password is not one of the user\'s passwords');
    if (passwords.length <= 1) throw new CannotDeleteLastPasswordError();
    await this.deps.users.deletePassword(target.uid, match.id);
    this.audit(ctx, actor, target, { event: 'password_delete' });
  }

  async unlock(actor: Actor | null, uid: number, ctx: RequestContext): Promise<User> {
    const target = await this.mustGet(uid);
    this.assertMayManage(actor, target);
    await this.deps.lockout.unlock(target);
    this.audit(ctx, actor, target, { event: 'unlock' });
    return this.mustGet(uid);
  }

  async expirePassword(actor: Actor | null, uid: number, ctx: RequestContext): Promise<User> {
    const target = await this.mustGet(uid);
    this.assertMayManage(actor, target);
    await this.deps.users.expirePassword(uid, new Date(this.deps.clock()));
    this.audit(ctx, actor, target, { event: 'password_expire' });
    return this.mustGet(uid);
  }

  async mustGet(uid: number): Promise<User> {
    const user = await this.deps.users.getByUid(uid);
    if (!user) throw new UserNotFoundError();
    return user;
  }

  /** admin manages everyone; user_manager everyone but admins. */
  assertMayManage(actor: Actor | null, target: User): void {
    if (actor === null || actor.role === 'admin') return;
    if (actor.role !== 'user_manager' || target.role === 'admin') {
      throw new UnauthorizedActionError('Only an admin may manage an admin');
    }
  }

  private assertMayGrant(actor: Actor | null, role: Role): void {
    if (role === 'admin' && actor !== null && actor.role !== 'admin') {
      throw new UnauthorizedActionError('Only an admin may grant the admin role');
    }
  }

  private async checkCandidate(target: User, password: string): Promise<void> {
    await checkNewPassword(password, target.username, await this.deps.policy.get());
    const credential = await this.deps.users.getCredential(target.uid);
    if ((await matchPassword(this.deps.hasher, credential?.passwords ?? [], password)).stored) throw new NewPasswordSameAsCurrentError();
  }

  private audit(ctx: RequestContext, actor: Actor | null, target: User, record: Omit<AuditRecord, 'outcome'>): void {
    this.deps.audit.record(ctx, {
      outcome: 'success',
      username: target.username,
      uid: target.uid,
      ...(actor && actor.uid !== target.uid && { actor_uid: actor.uid }),
      ...record,
    });
  }
}

function isManager(actor: Actor | null): boolean {
  return actor === null || actor.role === 'admin' || actor.role === 'user_manager';
}
