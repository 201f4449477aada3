import { isDeepStrictEqual } from 'node:util';
import type { Actor } from '../access/actor.js';
import type { Role } from '../access/management.js';
import { holds } from '../access/permissions.js';
import type { RequestContext } from '../audit/audit-log.js';
import { InvalidRequestError, LastAdminError, UnauthorizedActionError } from '../errors.js';
import { assertMayGrant, assertMayManage, assertMayPreHash, guardFor } from './account-access.js';
import { type AccountDeps, auditChange } from './account-deps.js';
import { assertLoginsFree, checkSubjectLine, rolesOf, type UserFields, withoutEmptyEmail } from './account-fields.js';
import { localOnly, mustGet, passwordUser } from './account-target.js';
import {
  checkCandidate,
  hashOf,
  newPassword,
  type PasswordHashMethod,
  passwordWritten,
  proveOwnPassword,
} from './new-password.js';
import { sameRoles, type User } from './user.js';
import type { ProfileChanges } from './user-store.js';
import { toUserView, type UserView } from './user-view.js';
import { READ_ONLY_USER_FIELDS } from './user-write-schemas.js';
import { usernameKey, validateEmail, validateUserName } from './username.js';

export interface AccountChanges extends UserFields {
  password?: string;
  password_hash_method?: PasswordHashMethod;
  /** The current password, when users change their own with a token. */
  old_password?: string;
  /** The server's fields, in a user sent back as GET answers it: no change as they are, refused otherwise. */
  uid?: number;
  status?: string;
  password_issue_date?: string;
  last_login?: number;
  username?: string;
  mfa_enabled?: boolean;
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

/** Changing a user (PUT /v1/users/{uid}): its profile, its roles, and the password such a request may give. */
export class UserUpdate {
  constructor(private readonly deps: AccountDeps) {}

  /** Changes what the request names; with `dryRun` checks everything and changes nothing. */
  async update(
    actor: Actor | null,
    uid: number,
    given: AccountChanges,
    ctx: RequestContext,
    dryRun = false,
  ): Promise<User> {
    const self = actor?.uid === uid;
    const manager = actor === null || holds(actor.rights, 'update_user');
    // Who may not manage users learns nothing of another uid (not even whether it exists) and changes little of its own.
    if (!self && !manager)
      throw new UnauthorizedActionError('Only who may manage users (admin, user_manager) may change another user');
    const target = localOnly(await mustGet(this.deps.users, uid));
    // A user read, changed and written back (GET, then PUT) carries every field: those as they are ask nothing.
    const changes = withoutEmptyEmail(
      withoutKept(given, target, toUserView(target, await this.deps.policy.get(), new Date(this.deps.clock()))),
    );
    const named = Object.keys(changes).filter((k) => changes[k as keyof AccountChanges] !== undefined);
    if (!self) assertMayManage(actor, target);
    const readOnly = READ_ONLY_USER_FIELDS.find((field) => changes[field] !== undefined);
    if (readOnly) throw new InvalidRequestError(`${readOnly} is read-only: send it as GET answers it, or leave it out`);
    if (self && !manager && named.some((k) => !OWN_FIELDS.has(k))) {
      throw new UnauthorizedActionError(
        'You may change your own password and alert settings; your name and email are changed by who manages users',
      );
    }
    const profile: ProfileChanges = {};
    // Names and emails as they are stored were dropped above: kept even where today's rules would refuse them (made before them).
    if (changes.name !== undefined) profile.name = changes.name === null ? null : validateUserName(changes.name);
    if (changes.email !== undefined) profile.email = changes.email === null ? null : validateEmail(changes.email);
    const name = profile.name === undefined ? target.name : profile.name;
    const email = profile.email === undefined ? target.email : profile.email;
    if (name === null && email === null) throw new InvalidRequestError('A user keeps a name or an email');
    // Only what changes is checked: a user keeps its own name, also one the directory has too.
    const renamed = profile.name != null && !target.logins.includes(usernameKey(profile.name));
    await assertLoginsFree(this.deps, { name: renamed ? profile.name! : null, email: profile.email ?? null }, uid);
    const roles =
      changes.role !== undefined || changes.role_uids !== undefined
        ? await rolesOf(this.deps.roles, changes, target.roleUids)
        : undefined;
    if (roles && !sameRoles(roles.roleUids, target.roleUids)) {
      const { rights } = roles;
      profile.roleUids = roles.roleUids;
      // Nobody changes its own roles (the product refuses it too): a user_manager would make itself more.
      if (self)
        throw new UnauthorizedActionError('You may not change your own roles: another user who manages users does');
      assertMayGrant(
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
      if (self) await proveOwnPassword(this.deps, actor!, target, changes.old_password, ctx);
      // Against the name and email the user has after this request, not before.
      await checkCandidate(this.deps, target, password, { name, email });
    }
    // The user as the request would leave it: what the real request answers.
    if (dryRun)
      return asItWouldBe(target, profile, roles?.rights, password === undefined ? undefined : this.deps.clock());
    // What the request really changes: a field sent as it is, is no change (neither written nor audited).
    const changed = changedFields(target, profile, named);
    if (changed.length === 0 && password === undefined) return target;
    // Hashed first, then everything the request changes written in one transaction: a crash leaves all of it or none.
    const guard = guardFor(actor, target);
    if (password === undefined) await this.deps.users.updateProfile(uid, profile, guard);
    else {
      const hash = await hashOf(this.deps, password, { name, email });
      const issuedAt = new Date(this.deps.clock());
      await this.deps.users.updateProfileAndPassword(uid, profile, { hash, issuedAt }, guard);
      await passwordWritten(this.deps, actor, target, password, ctx);
    }
    if (changed.length > 0)
      auditChange(this.deps.audit, ctx, actor, target, { event: 'user_update', changes: changed });
    return mustGet(this.deps.users, uid);
  }
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

/**
 * The request without what it sends as the user has it (a user read and sent back whole):
 * read-only fields as GET answers them (last_login: or an earlier one), a name or email as stored ("" for none, as GET
 * answers it), `role_uids` of the same roles (with `role` as GET reads it), the same
 * auth_method, alerts and certificate subject. What is left is what the request asks.
 */
function withoutKept(given: AccountChanges, user: User, view: UserView): AccountChanges {
  const changes = { ...given };
  const drop = (field: keyof AccountChanges, kept: boolean) => {
    if (changes[field] !== undefined && kept) delete changes[field];
  };
  drop('uid', given.uid === view.uid);
  drop('status', given.status === view.status);
  drop('username', given.username === view.username);
  // last_login only moves forward, by the user's own logins: an earlier one is a read from before them, not a request.
  drop(
    'last_login',
    given.last_login !== undefined && view.last_login !== undefined && given.last_login <= view.last_login,
  );
  drop('password_issue_date', sameSecond(given.password_issue_date, view.password_issue_date));
  drop('name', given.name === user.name || (given.name === '' && user.name === null));
  drop('email', given.email === user.email || ((given.email === '' || given.email === null) && user.email === null));
  // role alone is a change of roles (the built-in role of that level); beside the same role_uids it only reads them back.
  if (
    given.role_uids !== undefined &&
    sameRoles(given.role_uids, user.roleUids) &&
    given.role_uids.length === new Set(given.role_uids).size
  ) {
    drop('role', given.role === view.role);
    if (changes.role === undefined) delete changes.role_uids;
  }
  drop('auth_method', given.auth_method === user.authMethod);
  drop('email_alerts', given.email_alerts === user.emailAlerts);
  drop('cluster_email_alerts', given.cluster_email_alerts === user.clusterEmailAlerts);
  drop('bdbs_email_alerts', isDeepStrictEqual(given.bdbs_email_alerts, user.bdbsEmailAlerts));
  drop('certificate_subject_line', given.certificate_subject_line === user.certificateSubjectLine);
  return changes;
}

/** Whether a time sent back is the one GET answered: the same text, or the same second. */
function sameSecond(given: string | undefined, shown: string): boolean {
  if (given === shown) return true;
  const at = given === undefined ? Number.NaN : Date.parse(given);
  return !Number.isNaN(at) && Math.floor(at / 1000) === Math.floor(Date.parse(shown) / 1000);
}

/** The user as a change would leave it (what a dry run answers): its profile, its roles, a new password's dates. */
function asItWouldBe(user: User, p: ProfileChanges, rights: Role[] | undefined, passwordAt: number | undefined): User {
  const name = p.name === undefined ? user.name : p.name;
  const email = p.email === undefined ? user.email : p.email;
  const at = passwordAt === undefined ? undefined : new Date(passwordAt);
  return {
    ...user,
    name,
    email,
    username: (name ?? email)!,
    ...(p.roleUids !== undefined && rights !== undefined && { roleUids: p.roleUids, rights }),
    ...(p.emailAlerts !== undefined && { emailAlerts: p.emailAlerts }),
    ...(p.clusterEmailAlerts !== undefined && { clusterEmailAlerts: p.clusterEmailAlerts }),
    ...(p.bdbsEmailAlerts !== undefined && { bdbsEmailAlerts: p.bdbsEmailAlerts }),
    ...(p.certificateSubjectLine !== undefined && { certificateSubjectLine: p.certificateSubjectLine }),
    // A new password starts its dates again and lifts a lock, as the store writes it.
    ...(at && { passwordIssueDate: at, passwordExpiresAt: null, lockedUntil: null, lockResetAt: at }),
  };
}
