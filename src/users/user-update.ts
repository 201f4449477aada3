import { isDeepStrictEqual } from 'node:util';
import type { Actor } from '../access/actor.js';
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
import { usernameKey, validateEmail, validateUserName } from './username.js';

export interface AccountChanges extends UserFields {
  password?: string;
  password_hash_method?: PasswordHashMethod;
  /** The current password, when users change their own with a token. */
  old_password?: string;
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
    const target = localOnly(await mustGet(this.deps.users, uid));
    if (!self) assertMayManage(actor, target);
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
    if (dryRun) return target;
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
