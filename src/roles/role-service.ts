import type { Actor } from '../access/actor.js';
import { isBuiltInRole } from '../access/built-in-roles.js';
import type { Role as Management } from '../access/management.js';
import { checkedScopes, type ResourceScope, sameScopes } from '../access/resource-scopes.js';
import { type AuditLog, actorOf, type RequestContext } from '../audit/audit-log.js';
import {
  BuiltInRoleChangeError,
  BuiltInRoleError,
  InvalidRequestError,
  LastAdminError,
  RoleNotFoundError,
  UnauthorizedActionError,
  UserAlreadyExistsError,
} from '../errors.js';
import type { UserStore } from '../users/user-store.js';
import { validateRoleName } from '../users/username.js';
import type { Role } from './role.js';
import type { RoleStore } from './role-store.js';

/** What a write of a role gives (POST and PUT /v1/roles; `uid`: read-only on PUT, its own uid is no change). */
export interface RoleInput {
  name?: string;
  management?: Management;
  resources?: ResourceScope[];
  uid?: number;
  mfa_required?: boolean;
}

/**
 * Roles: names unique with their case (as the product: "admin" is not the built-in "Admin"), only an admin makes or changes a role that grants
 * admin, a built-in role or one in use is not deleted, the last admin is never lost through a role, a db_member or
 * db_viewer role may be limited to some databases (`resources`), and a role whose management or resources change
 * ends its holders' tokens (their rights changed: their tokens carry both).
 */
export class RoleService {
  constructor(
    private readonly roles: RoleStore,
    private readonly users: UserStore,
    private readonly audit: AuditLog,
  ) {}

  list(): Promise<Role[]> {
    return this.roles.list();
  }

  async get(uid: number): Promise<Role> {
    const role = await this.roles.get(uid);
    if (!role) throw new RoleNotFoundError();
    return role;
  }

  /** `actor` null: the local CLI, which has the data directory and so every right. */
  async create(
    actor: Actor | null,
    input: { name: string; management: Management; uid?: number; resources?: ResourceScope[]; mfa_required?: boolean },
    ctx: RequestContext,
    dryRun = false,
  ): Promise<Role | undefined> {
    const name = validateRoleName(input.name);
    this.assertMayGrant(actor, input.management);
    const resources = checkedScopes(input.management, input.resources ?? []);
    if (await this.roles.nameTaken(name)) throw nameTaken();
    if (input.uid !== undefined && (await this.roles.get(input.uid)))
      throw new UserAlreadyExistsError('uid_already_exists', `A role with uid ${input.uid} already exists`);
    if (dryRun) return undefined;
    const role = await this.roles.create({
      name,
      management: input.management,
      resources,
      ...(input.uid !== undefined && { uid: input.uid }),
      mfaRequired: input.mfa_required === true,
    });
    this.record(ctx, actor, 'role_create', role, [
      'name',
      'management',
      ...(resources.length > 0 ? ['resources'] : []),
      ...(role.mfaRequired ? ['mfa_required'] : []),
    ]);
    return role;
  }

  /** With `dryRun`, the role as it would be: checked, nothing written, nothing ended, nothing audited. */
  async update(actor: Actor, uid: number, changes: RoleInput, ctx: RequestContext, dryRun = false): Promise<Role> {
    const role = await this.get(uid);
    const mayGrant = (r: Role) => {
      if (r.management === 'admin' || changes.management === 'admin') this.assertMayGrant(actor, 'admin');
    };
    mayGrant(role);
    // A role read and sent back whole (GET, then PUT) carries its uid: its own is no change, another one is refused.
    if (changes.uid !== undefined && changes.uid !== uid)
      throw new InvalidRequestError('uid is read-only: send it as GET answers it, or leave it out');
    // A name sent back as it is stored is no change: kept even where today's rules would refuse it (made before them).
    const name =
      changes.name === undefined || changes.name === role.name ? changes.name : validateRoleName(changes.name);
    const resources =
      changes.resources === undefined
        ? undefined
        : checkedScopes(changes.management ?? role.management, changes.resources);
    const mayChange = (r: Role) => {
      mayGrant(r);
      // The scopes the role keeps must fit its new level (asked again of the role as the transaction sees it).
      checkedScopes(changes.management ?? r.management, resources ?? r.resources);
    };
    mayChange(role);
    const levelChanges = changes.management !== undefined && changes.management !== role.management;
    const scopesChange = resources !== undefined && !sameScopes(resources, role.resources);
    if (isBuiltInRole(uid) && ((name !== undefined && name !== role.name) || levelChanges || scopesChange))
      throw new BuiltInRoleChangeError(role.name);
    if (name !== undefined && (await this.roles.nameTaken(name, uid))) throw nameTaken();
    if (levelChanges && role.management === 'admin' && (await this.roles.holders(uid)) > 0) {
      // Would the role's holders leave the cluster without an admin? Counted as if it had changed.
      const adminsWithout = (await this.users.countAdmins()) - (await this.adminsOnlyThrough(uid));
      if (adminsWithout < 1) throw new LastAdminError('change_last_admin_role_not_allowed');
    }
    const after: Role = {
      ...role,
      ...(name !== undefined && { name }),
      ...(changes.management !== undefined && { management: changes.management }),
      ...(resources !== undefined && { resources }),
      ...(changes.mfa_required !== undefined && { mfaRequired: changes.mfa_required }),
    };
    if (dryRun) return after;
    // A field sent as it is, is no change: neither written nor audited.
    const changed = [
      ...(name !== undefined && name !== role.name ? ['name'] : []),
      ...(levelChanges ? ['management'] : []),
      ...(scopesChange ? ['resources'] : []),
      // A built-in role may require a second factor too: the admins' is the one that matters most.
      ...(changes.mfa_required !== undefined && changes.mfa_required !== role.mfaRequired ? ['mfa_required'] : []),
    ];
    if (changed.length === 0) return role;
    // Asked again in the store's transaction: an admin may have made it an admin role meanwhile.
    if (
      await this.roles.update(
        uid,
        { name, management: changes.management, resources, mfaRequired: changes.mfa_required },
        mayChange,
      )
    )
      await this.users.revokeTokensOfRole(uid);
    this.record(ctx, actor, 'role_update', role, changed);
    return this.get(uid);
  }

  /** With `dryRun` (the product's OpenAPI gives DELETE one): every check, nothing deleted. */
  async delete(actor: Actor, uid: number, ctx: RequestContext, dryRun = false): Promise<void> {
    const role = await this.get(uid);
    const mayDelete = (r: Role) => {
      if (r.management === 'admin') this.assertMayGrant(actor, 'admin');
    };
    mayDelete(role);
    if (isBuiltInRole(uid)) throw new BuiltInRoleError(role.name);
    // In use by a user or an LDAP mapping: refused by the store, in the transaction that deletes it.
    const held = await this.roles.delete(uid, mayDelete, dryRun);
    if (dryRun) return;
    for (const holder of held) await this.users.revokeTokens(holder); // directory users who held it
    this.record(ctx, actor, 'role_delete', role);
  }

  /** Holders of this role who are admins through it alone. */
  private async adminsOnlyThrough(roleUid: number): Promise<number> {
    const holders = (await this.users.list()).filter((u) => u.roleUids.includes(roleUid) && u.rights.includes('admin'));
    const all = await this.roles.list();
    const adminRoles = new Set(all.filter((r) => r.management === 'admin' && r.uid !== roleUid).map((r) => r.uid));
    return holders.filter((u) => !u.roleUids.some((r) => adminRoles.has(r))).length;
  }

  private assertMayGrant(actor: Actor | null, management: Management): void {
    if (management === 'admin' && actor !== null && !actor.rights.includes('admin')) {
      throw new UnauthorizedActionError('Only an admin may make or change a role with admin management');
    }
  }

  private record(
    ctx: RequestContext,
    actor: Actor | null,
    event: 'role_create' | 'role_update' | 'role_delete',
    role: Role,
    changes?: string[],
  ) {
    this.audit.record(ctx, {
      event,
      outcome: 'success',
      ...actorOf(actor),
      target: `role ${role.uid} (${role.name})`,
      ...(changes && { changes }),
    });
  }
}

function nameTaken() {
  return new UserAlreadyExistsError('name_already_exists', 'A role with this name already exists');
}
