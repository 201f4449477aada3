import { isDeepStrictEqual } from 'node:util';
import type { Actor } from '../access/actor.js';
import type { Role } from '../access/management.js';
import { highest, rightsFrom } from '../access/management.js';
import { holds } from '../access/permissions.js';
import { type AuditLog, type AuditRecord, actorOf, type RequestContext } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import {
  CannotDeleteLastPasswordError,
  CertificateUserError,
  DirectoryUserError,
  EmailAlreadyExistsError,
  ForbiddenError,
  InvalidCredentialsError,
  InvalidRequestError,
  LastAdminError,
  MissingCredentialsError,
  NewPasswordSameAsCurrentError,
  SsoUserError,
  TooManyPasswordsError,
  UnauthorizedActionError,
  UserAlreadyExistsError,
  UserNotExistError,
  UserNotFoundError,
} from '../errors.js';
import type { PolicyService } from '../policy/policy-service.js';
import { BUILT_IN_ROLE_OF_LEVEL } from '../roles/built-in.js';
import { MAX_PASSWORDS, matchPassword } from './match-password.js';
import type { PasswordHasher } from './password-hasher.js';
import { checkNewPassword } from './password-rules.js';
import { checkPreHashed, type PreHashed, preHashedRecord } from './pre-hashed-password.js';
import { type AuthMethod, sameRoles, type User } from './user.js';
import type { CredentialStore, ProfileChanges, UserGuard, UserProfile, UserStore } from './user-store.js';
import { isEmail, usernameKey, validateEmail, validateUserName } from './username.js';

/** The fields of the product's user object that a client writes. */
export interface UserFields {
  name?: string | null;
  email?: string | null;
  role?: Role;
  role_uids?: number[];
  auth_method?: AuthMethod;
  email_alerts?: boolean;
  cluster_email_alerts?: boolean;
  bdbs_email_alerts?: string[] | null;
  /** auth_method 'certificate': the RFC 2253 subject of the user's client certificate ("CN=…,OU=…,O=…"). */
  certificate_subject_line?: string;
}

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

export interface CreateOptions {
  /** Check everything, create nothing. */
  dryRun?: boolean;
  /** A user moved in from a cluster: when its password was set there (now by default)… */
  passwordIssueDate?: Date;
  /** …and that cluster's name, the "clustername" of its pre-hashed password (this cluster's by default). */
  clusterName?: string;
}

export interface NewAccount extends UserFields {
  /** Required, but for a certificate user, who has none. */
  password?: string;
  password_hash_method?: PasswordHashMethod;
  /** Tessera's shorthand: an e-mail-shaped value is the email, any other the name. */
  username?: string;
}

export interface AccountChanges extends UserFields {
  password?: string;
  password_hash_method?: PasswordHashMethod;
  /** The current password, when users change their own with a token. */
  old_password?: string;
}

/** Who may prove to be whom: the realm chain, as the accounts see it. */
export interface Identities {
  /** A user's current password, confirmed with a login's guards (throttling, lockout); an expired one confirms too. */
  confirmPassword(username: string, password: string, ctx: RequestContext): Promise<User>;
  /** The way in (other than this store) that knows somebody by this name who has no account yet. */
  nameTaken(name: string): Promise<string | undefined>;
}

export interface AccountDeps {
  users: UserStore & CredentialStore;
  /** The roles there are, for the management levels that role_uids give. */
  roles: { list(): Promise<readonly { uid: number; management: Role }[]> };
  hasher: PasswordHasher;
  policy: PolicyService;
  /** Lifts a user's lock and forgets their failed logins (the guard's Lockout). */
  lockout: { unlock(user: User): Promise<void> };
  audit: AuditLog;
  clock: Clock;
  identities: Identities;
  /** The cluster's name as set (GET /v1/cluster), "" when it is not: the "clustername" of the product's pre-hashed passwords. */
  clusterName(): Promise<string>;
}

/**
 * What every user may change of itself: its password and alert preferences. Not its name or
 * email (logins: a rename refused as taken would tell who may not see users that a name exists).
 */
const OWN_FIELDS = new Set([
  'password',
  'password_hash_method',
  'old_password',
  'email_alerts',
  'cluster_email_alerts',
  'bdbs_email_alerts',
]);

/**
 * Users and their passwords: who may change whom, the policy on new passwords, the last
 * admin, and one audit line per change — the same rules on every endpoint. `actor` is
 * whoever asks; null for the local CLI, which has the data directory and so every right.
 */
/** A user made with neither `role` nor `role_uids` gets the product's default: db_viewer. */
const DEFAULT_ROLE = 'db_viewer';

/** `email: ""` is the product's "no email". */
function withoutEmptyEmail<T extends { email?: string | null }>(input: T): T {
  return input.email === '' ? { ...input, email: null } : input;
}

export class AccountService {
  constructor(private readonly deps: AccountDeps) {}

  /** Creates a user, or with `dryRun` checks everything and creates nothing (undefined). */
  async create(
    actor: Actor | null,
    given: NewAccount,
    ctx: RequestContext,
    { dryRun = false, ...moved }: CreateOptions = {},
  ): Promise<User | undefined> {
    const input = withoutEmptyEmail(given);
    const certificate = input.auth_method === 'certificate';
    const sso = input.auth_method === 'sso';
    if (certificate && input.password !== undefined)
      throw new CertificateUserError(
        'A user with auth_method "certificate" logs in with its client certificate: give no password',
      );
    if (sso && input.password !== undefined)
      throw new SsoUserError('A user with auth_method "sso" signs in through the identity provider: give no password');
    if (
      sso &&
      (input.email ?? (input.username && isEmail(input.username) ? input.username : undefined)) === undefined
    ) {
      throw new InvalidRequestError(
        'A user with auth_method "sso" needs its "email": the identity provider names it by its email',
      );
    }
    if (!certificate && !sso && input.password === undefined)
      throw new InvalidRequestError('Give a "password" (or auth_method "certificate" and certificate_subject_line)');
    if (input.password_hash_method !== undefined && input.password === undefined)
      throw new InvalidRequestError('password_hash_method goes with a "password" (pre-hashed)');
    if (!certificate && input.certificate_subject_line !== undefined)
      throw new InvalidRequestError('certificate_subject_line is for users with auth_method "certificate"');
    const subjectLine = certificate ? checkSubjectLine(input.certificate_subject_line) : undefined;
    // A certificate user may come without a name (the product's example has none): its CN is.
    const logins = loginsOf(
      subjectLine && input.name === undefined && input.email === undefined && input.username === undefined
        ? { ...input, name: commonName(subjectLine) }
        : input,
    );
    const { roleUids, rights } = await this.rolesOf(input, [BUILT_IN_ROLE_OF_LEVEL[DEFAULT_ROLE]]);
    this.assertMayGrant(actor, rights);
    const password =
      input.password === undefined
        ? undefined
        : newPassword(input.password, input.password_hash_method, moved.clusterName);
    // A pre-hashed password met the product's rules when it was chosen; its text is not here to check.
    if (typeof password === 'string') await checkNewPassword(password, logins, await this.deps.policy.get());
    else if (password !== undefined) await this.clusterOf(password);
    const profile: UserProfile = {
      ...logins,
      roleUids,
      authMethod: input.auth_method ?? 'regular',
      emailAlerts: input.email_alerts ?? true,
      clusterEmailAlerts: input.cluster_email_alerts ?? false,
      bdbsEmailAlerts: input.bdbs_email_alerts ?? null,
      ...(subjectLine && { certificateSubjectLine: subjectLine }),
    };
    await this.assertLoginsFree(logins);
    if (subjectLine && (await this.deps.users.findByCertificateSubject(subjectLine))) {
      throw new UserAlreadyExistsError(
        'name_already_exists',
        'A user with this certificate_subject_line already exists',
      );
    }
    if (dryRun) return undefined;
    const user = await this.deps.users.create({
      ...profile,
      ...(password !== undefined && { passwordHash: await this.hashOf(password, logins) }),
      passwordIssueDate: moved.passwordIssueDate ?? new Date(this.deps.clock()),
    });
    this.audit(ctx, actor, user, {
      event: 'user_create',
      changes: Object.keys(input)
        .filter((k) => k !== 'password')
        .concat(input.password !== undefined ? ['password'] : []),
    });
    return user;
  }

  /** Changes what the request names; with `dryRun` checks everything and changes nothing. */
  async update(
    actor: Actor | null,
    uid: number,
    given: AccountChanges,
    ctx: RequestContext,
    dryRun = false,
  ): Promise<User> {
    const changes = withoutEmptyEmail(given);
    const self = actor?.uid === uid;
    const named = Object.keys(changes).filter((k) => changes[k as keyof AccountChanges] !== undefined);
    const manager = actor === null || holds(actor.rights, 'update_user');
    // Who may not manage users learns nothing of another uid (not even whether it exists) and changes little of its own.
    if (!self && !manager)
      throw new UnauthorizedActionError('Only who may manage users (admin, user_manager) may change another user');
    if (self && !manager && named.some((k) => !OWN_FIELDS.has(k))) {
      throw new UnauthorizedActionError(
        'You may change your own password and alert settings; your name and email are changed by who manages users',
      );
    }
    const target = localOnly(await this.mustGet(uid));
    if (!self) this.assertMayManage(actor, target);
    const profile: ProfileChanges = {};
    // A name or email sent back as it is stored is no change: kept even where today's rules would refuse it (made before them).
    if (changes.name !== undefined)
      profile.name =
        changes.name === null ? null : changes.name === target.name ? target.name : validateUserName(changes.name);
    if (changes.email !== undefined)
      profile.email =
        changes.email === null ? null : changes.email === target.email ? target.email : validateEmail(changes.email);
    const name = profile.name === undefined ? target.name : profile.name;
    const email = profile.email === undefined ? target.email : profile.email;
    if (name === null && email === null) throw new InvalidRequestError('A user keeps a name or an email');
    // Only what changes is checked: a user keeps its own name, also one the directory has too.
    const renamed = profile.name != null && !target.logins.includes(usernameKey(profile.name));
    await this.assertLoginsFree({ name: renamed ? profile.name! : null, email: profile.email ?? null }, uid);
    const roles =
      changes.role !== undefined || changes.role_uids !== undefined
        ? await this.rolesOf(changes, target.roleUids)
        : undefined;
    if (roles && !sameRoles(roles.roleUids, target.roleUids)) {
      const { rights } = roles;
      profile.roleUids = roles.roleUids;
      // Nobody changes its own roles (the product refuses it too): a user_manager would make itself more.
      if (self)
        throw new UnauthorizedActionError('You may not change your own roles: another user who manages users does');
      this.assertMayGrant(
        actor,
        rights.filter((r) => !target.rights.includes(r)),
      );
      if (target.rights.includes('admin') && !rights.includes('admin') && (await this.deps.users.countAdmins()) <= 1) {
        throw new LastAdminError('change_last_admin_role_not_allowed');
      }
    }
    if (changes.auth_method !== undefined && changes.auth_method !== target.authMethod) {
      throw new InvalidRequestError('auth_method does not change: make a new user that logs in the other way');
    }
    if (changes.certificate_subject_line !== undefined) {
      if (target.authMethod !== 'certificate')
        throw new InvalidRequestError('certificate_subject_line is for users with auth_method "certificate"');
      profile.certificateSubjectLine = checkSubjectLine(changes.certificate_subject_line);
    }
    if (changes.password_hash_method !== undefined && changes.password === undefined)
      throw new InvalidRequestError('password_hash_method goes with a "password" (pre-hashed)');
    const password =
      changes.password === undefined ? undefined : newPassword(changes.password, changes.password_hash_method);
    if (password !== undefined) passwordUser(target);
    if (changes.email_alerts !== undefined) profile.emailAlerts = changes.email_alerts;
    if (changes.cluster_email_alerts !== undefined) profile.clusterEmailAlerts = changes.cluster_email_alerts;
    if (changes.bdbs_email_alerts !== undefined) profile.bdbsEmailAlerts = changes.bdbs_email_alerts;
    if (password !== undefined) {
      assertMayPreHash(actor, target, password);
      if (self) await this.proveOwnPassword(actor!, target, changes.old_password, ctx);
      // Against the name and email the user has after this request, not before.
      await this.checkCandidate(target, password, { name, email });
    }
    if (dryRun) return target;
    // What the request really changes: a field sent as it is, is no change (neither written nor audited).
    const changed = changedFields(target, profile, named);
    if (changed.length === 0 && password === undefined) return target;
    // Hashed first, then everything the request changes written in one transaction: a crash leaves all of it or none.
    const guard = this.guardFor(actor, target);
    if (password === undefined) await this.deps.users.updateProfile(uid, profile, guard);
    else {
      const hash = await this.hashOf(password, { name, email });
      const issuedAt = new Date(this.deps.clock());
      await this.deps.users.updateProfileAndPassword(uid, profile, { hash, issuedAt }, guard);
      await this.passwordWritten(actor, target, password, ctx);
    }
    if (changed.length > 0) this.audit(ctx, actor, target, { event: 'user_update', changes: changed });
    return this.mustGet(uid);
  }

  async delete(actor: Actor | null, uid: number, ctx: RequestContext): Promise<void> {
    const target = await this.mustGet(uid);
    this.assertMayManage(actor, target);
    if (target.rights.includes('admin') && (await this.deps.users.countAdmins()) <= 1) {
      throw new LastAdminError('delete_last_admin_not_allowed');
    }
    await this.deps.users.delete(uid, this.guardFor(actor, target));
    this.audit(ctx, actor, target, { event: 'user_delete' });
  }

  /**
   * Whose password a /v1/users/password request changes, and whether it may: another
   * user's for who may manage that user; one's own with the proof of the current password
   * (the request's Basic credentials, or `old_password`). Without credentials, `username`
   * and `old_password` (how an expired password is replaced).
   */
  async passwordTarget(
    actor: Actor | null,
    username: string | undefined,
    oldPassword: string | undefined,
    ctx: RequestContext,
  ): Promise<{ actor: Actor; target: User }> {
    const own = actor ? await this.mustGet(actor.uid) : undefined;
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
      this.assertMayManage(actor, named);
      return { actor, target: named };
    }
    if (actor && own && (named?.uid === own.uid || username === undefined)) {
      passwordUser(own);
      await this.proveOwnPassword(actor, own, oldPassword, ctx);
      return { actor, target: own };
    }
    if (username === undefined || oldPassword === undefined) {
      throw new MissingCredentialsError('Give "username" and "old_password" to change your own password');
    }
    const user = await this.confirm(username, oldPassword, ctx);
    return { actor: { uid: user.uid, username: user.username, rights: user.rights, via: 'password' }, target: user };
  }

  /** All of the user's passwords become this one; lifts expiry and lock, ends tokens. */
  async replacePasswords(actor: Actor | null, target: User, password: NewPassword, ctx: RequestContext): Promise<void> {
    passwordUser(target);
    assertMayPreHash(actor, target, password);
    await this.checkCandidate(target, password);
    await this.writeNewPassword(actor, target, password, ctx);
  }

  /** A second password beside the current one, for a rotation; one that someone else gives ends the user's tokens. */
  async addPassword(actor: Actor | null, target: User, password: NewPassword, ctx: RequestContext): Promise<void> {
    passwordUser(target);
    assertMayPreHash(actor, target, password);
    // Beside a password the user goes on logging in with, a pre-hashed one would stay for ever.
    if (typeof password !== 'string')
      throw new InvalidRequestError(
        "A pre-hashed password replaces the user's passwords (PUT): it is not added beside them",
      );
    const credential = await this.deps.users.getCredential(target.uid);
    if ((credential?.passwords.length ?? 0) >= MAX_PASSWORDS) throw new TooManyPasswordsError(MAX_PASSWORDS);
    await this.checkCandidate(target, password);
    const byAnother = actor?.uid !== target.uid;
    await this.deps.users.addPassword(
      target.uid,
      await this.hashOf(password, target),
      new Date(this.deps.clock()),
      byAnother,
      this.guardFor(actor, target),
    );
    this.audit(ctx, actor, target, { event: 'password_add' });
  }

  /**
   * Removes the password `password` of the user; never the last one. Refused as the last one
   * whatever the password (that answer tells nothing of it); else the password is checked as a
   * login's is — throttled, counted toward the user's lockout — since every check is a guess.
   */
  async deletePassword(actor: Actor | null, target: User, password: string, ctx: RequestContext): Promise<void> {
    passwordUser(target);
    const credential = await this.deps.users.getCredential(target.uid);
    const passwords = credential?.passwords ?? [];
    if (passwords.length <= 1) throw new CannotDeleteLastPasswordError();
    const notOne = () => new InvalidRequestError("old_password is not one of the user's passwords");
    try {
      await this.confirm(target.username, password, ctx);
    } catch (err) {
      throw err instanceof InvalidCredentialsError ? notOne() : err;
    }
    const { stored: match } = await matchPassword(this.deps.hasher, passwords, password);
    if (!match) throw notOne();
    await this.deps.users.deletePassword(target.uid, match.id, this.guardFor(actor, target));
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
    const target = passwordUser(await this.mustGet(uid));
    this.assertMayManage(actor, target);
    await this.deps.users.expirePassword(uid, new Date(this.deps.clock()));
    this.audit(ctx, actor, target, { event: 'password_expire' });
    return this.mustGet(uid);
  }

  /** A user as `actor` may see it: itself, or anyone for who may view users. */
  async view(actor: Actor, uid: number, read: (uid: number) => Promise<User | undefined>): Promise<User> {
    this.assertMayView(actor, uid);
    return found(await read(uid));
  }

  /** view, of a user read already (or known absent). */
  viewRead(actor: Actor, uid: number, user: User | undefined): User {
    this.assertMayView(actor, uid);
    return found(user);
  }

  private assertMayView(actor: Actor, uid: number): void {
    if (actor.uid !== uid && !holds(actor.rights, 'view_user_info')) throw new ForbiddenError();
  }

  async mustGet(uid: number): Promise<User> {
    return found(await this.deps.users.getByUid(uid));
  }

  /** Who may manage users (update_user) manages everyone; only an admin manages an admin. */
  assertMayManage(actor: Actor | null, target: User): void {
    if (actor === null) return;
    if (!holds(actor.rights, 'update_user'))
      throw new UnauthorizedActionError('Only who may manage users (admin, user_manager) may change another user');
    if (target.rights.includes('admin') && !actor.rights.includes('admin')) {
      throw new UnauthorizedActionError('Only an admin may manage an admin');
    }
  }

  /**
   * The rule about whom, asked again by the store of the user as it is when the change is
   * written: checked first on a read made before the password hashing, it could miss a
   * promotion to admin made meanwhile on another node.
   */
  private guardFor(actor: Actor | null, target: User): UserGuard | undefined {
    return actor && actor.uid !== target.uid ? (current) => this.assertMayManage(actor, current) : undefined;
  }

  /** Only an admin grants admin rights, directly or through a role. */
  assertMayGrant(actor: Actor | null, levels: readonly Role[]): void {
    if (levels.includes('admin') && actor !== null && !actor.rights.includes('admin')) {
      throw new UnauthorizedActionError('Only an admin may grant the admin role');
    }
  }

  /**
   * The roles a write gives (`role_uids` is the one source; a `role` alone, or beside an empty
   * `role_uids`, means the built-in role of that level; neither keeps `current`) and the rights
   * they grant. A `role` beside roles reads as it is read back: it must name their highest
   * level. An unknown uid is refused.
   */
  private async rolesOf(
    given: { role?: Role; role_uids?: number[] },
    current: readonly number[],
  ): Promise<{ roleUids: number[]; rights: Role[] }> {
    // An empty role_uids beside a role (older clients, the product's exports of users made before its roles) is the role alone.
    const byUids = given.role_uids !== undefined && (given.role === undefined || given.role_uids.length > 0);
    const roleUids = byUids
      ? [...new Set(given.role_uids)].sort((a, b) => a - b)
      : given.role !== undefined
        ? [BUILT_IN_ROLE_OF_LEVEL[given.role]]
        : [...current];
    const all = await this.deps.roles.list();
    const rights = rightsFrom(
      roleUids.map((uid) => {
        const found = all.find((r) => r.uid === uid);
        if (!found) throw new InvalidRequestError(`role_uids: there is no role ${uid} (GET /v1/roles lists them)`);
        return found.management;
      }),
    );
    if (given.role !== undefined && byUids && given.role !== highest(rights)) {
      throw new InvalidRequestError(
        `role: role_uids give "${highest(rights)}", not "${given.role}"; send role_uids alone (role is read back as their highest level)`,
      );
    }
    return { roleUids, rights };
  }

  private async proveOwnPassword(
    actor: Actor,
    user: User,
    oldPassword: string | undefined,
    ctx: RequestContext,
  ): Promise<void> {
    if (actor.via === 'password') return; // the request's own credentials were just verified
    // A token does not prove who holds the keyboard now (OWASP ASVS 2.1.6).
    if (oldPassword === undefined)
      throw new InvalidRequestError('old_password is required to change your own password with a token');
    await this.confirm(user.username, oldPassword, ctx);
  }

  private confirm(username: string, password: string, ctx: RequestContext): Promise<User> {
    return this.deps.identities.confirmPassword(username, password, ctx);
  }

  private async writeNewPassword(
    actor: Actor | null,
    target: User,
    password: NewPassword,
    ctx: RequestContext,
  ): Promise<void> {
    await this.deps.users.replacePasswords(
      target.uid,
      await this.hashOf(password, target),
      new Date(this.deps.clock()),
      this.guardFor(actor, target),
    );
    await this.passwordWritten(actor, target, password, ctx);
  }

  /** After a new password is stored: the lockout's counters forgotten, and the change audited. */
  private async passwordWritten(
    actor: Actor | null,
    target: User,
    password: NewPassword,
    ctx: RequestContext,
  ): Promise<void> {
    await this.deps.lockout.unlock(target);
    // Said, so that passwords set past the rules can be found.
    this.audit(ctx, actor, target, {
      event: 'password_change',
      ...(typeof password !== 'string' && { changes: ['password_hash_method'] }),
    });
  }

  /**
   * Names and emails are one account's across every way in: not another user's here, and a
   * new name not somebody's in the directory either (who would then never log in with it).
   */
  private async assertLoginsFree(
    logins: { name: string | null; email: string | null },
    exceptUid?: number,
  ): Promise<void> {
    const taken = await this.deps.users.takenLogins(logins, exceptUid);
    if (taken === 'name') throw new UserAlreadyExistsError();
    if (taken === 'email') throw new EmailAlreadyExistsError();
    const elsewhere = logins.name === null ? undefined : await this.deps.identities.nameTaken(logins.name);
    if (elsewhere)
      throw new UserAlreadyExistsError(
        'name_already_exists',
        `The ${elsewhere === 'ldap' ? 'LDAP directory' : elsewhere} has a user of this name`,
      );
  }

  /** What is stored of a new password: its argon2id hash, or the product's pre-hashed one until its first login. */
  private async hashOf(password: NewPassword, logins: { name: string | null; email: string | null }): Promise<string> {
    return typeof password === 'string'
      ? this.deps.hasher.hash(password)
      : preHashedRecord(password, logins, await this.clusterOf(password));
  }

  /** The clustername of a pre-hashed password's recipe. Every node must make the same record: a name set for the cluster, not each node's host. */
  private async clusterOf(password: PreHashed): Promise<string> {
    const cluster = password.clusterName ?? (await this.deps.clusterName());
    if (cluster === '')
      throw new InvalidRequestError(
        'Set the cluster\'s name first (PUT /v1/cluster {"name": …}): the clustername the pre-hashed password was made with',
      );
    return cluster;
  }

  /** The policy's rules and "not the current one", for a password whose text is here; a pre-hashed one has none to check. */
  private async checkCandidate(
    target: User,
    password: NewPassword,
    logins: { name: string | null; email: string | null } = target,
  ): Promise<void> {
    if (typeof password !== 'string') {
      await this.clusterOf(password);
      return;
    }
    await checkNewPassword(password, logins, await this.deps.policy.get());
    const credential = await this.deps.users.getCredential(target.uid);
    if ((await matchPassword(this.deps.hasher, credential?.passwords ?? [], password)).stored)
      throw new NewPasswordSameAsCurrentError();
  }

  private audit(ctx: RequestContext, actor: Actor | null, target: User, record: Omit<AuditRecord, 'outcome'>): void {
    this.deps.audit.record(ctx, {
      outcome: 'success',
      ...actorOf(actor),
      uid: target.uid,
      username: target.username,
      ...record,
    });
  }
}

/** The name and email of a new user, from `name`, `email` and Tessera's `username`. */
function loginsOf(input: NewAccount): { name: string | null; email: string | null } {
  let name = input.name ?? null;
  let email = input.email ?? null;
  if (input.username !== undefined) {
    if (isEmail(input.username) && email === null) email = input.username;
    else if (!isEmail(input.username) && name === null) name = input.username;
    else
      throw new InvalidRequestError(
        `"username" sets the ${isEmail(input.username) ? 'email' : 'name'}, which the request also gives`,
      );
  }
  if (name === null && email === null) throw new InvalidRequestError('Give "name", "email" or both');
  return { name: name === null ? null : validateUserName(name), email: email === null ? null : validateEmail(email) };
}

/** The fields a request named (as it named them) to which `profile` gives another value than the user has. */
function changedFields(user: User, profile: ProfileChanges, named: readonly string[]): string[] {
  const roles = profile.roleUids !== undefined && !sameRoles(profile.roleUids, user.roleUids);
  const differs: [string, boolean][] = [
    ['name', profile.name !== undefined && profile.name !== user.name],
    ['email', profile.email !== undefined && profile.email !== user.email],
    ['role', roles],
    ['role_uids', roles],
    ['email_alerts', profile.emailAlerts !== undefined && profile.emailAlerts !== user.emailAlerts],
    [
      'cluster_email_alerts',
      profile.clusterEmailAlerts !== undefined && profile.clusterEmailAlerts !== user.clusterEmailAlerts,
    ],
    [
      'bdbs_email_alerts',
      profile.bdbsEmailAlerts !== undefined && !isDeepStrictEqual(profile.bdbsEmailAlerts, user.bdbsEmailAlerts),
    ],
    [
      'certificate_subject_line',
      profile.certificateSubjectLine !== undefined && profile.certificateSubjectLine !== user.certificateSubjectLine,
    ],
  ];
  const changed = new Set(differs.filter(([, yes]) => yes).map(([field]) => field));
  return named.filter((field) => changed.has(field));
}

function found(user: User | undefined): User {
  if (!user) throw new UserNotFoundError();
  return user;
}

/** A user whose password and profile live here: a directory user's live in the directory. */
function localOnly(user: User): User {
  if (user.realm !== 'local') throw new DirectoryUserError();
  return user;
}

/**
 * A pre-hashed password skips the rules (its text is not here): it moves a user in, given by
 * who manages users or the CLI, never chosen by users for themselves.
 */
function assertMayPreHash(actor: Actor | null, target: User, password: NewPassword): void {
  if (typeof password !== 'string' && actor?.uid === target.uid) {
    throw new UnauthorizedActionError(
      'A pre-hashed password (password_hash_method) moves a user in from a cluster; choose your own as text, so that the password rules are checked',
    );
  }
}

/** A user who logs in with a password kept here: not a directory user, not a certificate user. */
function passwordUser(user: User): User {
  if (localOnly(user).authMethod === 'certificate') throw new CertificateUserError();
  if (user.authMethod === 'sso') throw new SsoUserError();
  return user;
}

/**
 * A certificate_subject_line as the product takes it: RFC 2253, the CN first, no space after
 * the commas (it must equal the certificate's subject exactly).
 */
function checkSubjectLine(line: string | undefined): string {
  if (line === undefined || line.trim() === '')
    throw new InvalidRequestError(
      'A user with auth_method "certificate" needs certificate_subject_line, like "CN=ops-bot,OU=automation,O=Example"',
    );
  if (!/^CN=/.test(line) || /(?<!\\),\s/.test(line) || line.length > 1024 || /[\u0000-\u001f]/.test(line)) {
    throw new InvalidRequestError(
      'certificate_subject_line is the certificate\'s subject in RFC 2253 order: CN first, no space after the commas ("CN=ops-bot,OU=automation,O=Example")',
    );
  }
  return line;
}

/** The CN of an RFC 2253 subject line (the first attribute, unescaped enough for a login name). */
function commonName(line: string): string {
  const first = line.split(/(?<!\\),/)[0]!;
  return first.slice(3).replace(/\\(.)/g, '$1');
}
