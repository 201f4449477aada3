import type { Actor } from '../access/actor.js';
import type { Role as Management } from '../access/management.js';
import { type AuditLog, type AuditRecord, actorOf, type RequestContext } from '../audit/audit-log.js';
import { InvalidRequestError, LdapFieldsError, LdapMappingNotFoundError, UnauthorizedActionError } from '../errors.js';
import { assertMayGrant } from '../users/account-access.js';
import { sameRoles } from '../users/user.js';
import type { UserStore } from '../users/user-store.js';
import { isEmail, validateName } from '../users/username.js';
import { normalizeDn } from './escape.js';
import { stripUndefined } from './ldap-config.js';
import type { LdapMapping, LdapMappingInput, LdapMappingStore } from './ldap-mapping.js';

/** A mapping as a request gives it: any field may be missing (a PUT changes what it names). */
export interface LdapMappingFields {
  name?: string;
  dn?: string;
  role_uids?: (number | string)[];
  email?: string;
  email_alerts?: boolean;
  cluster_email_alerts?: boolean;
  bdbs_email_alerts?: string[];
}

/**
 * LDAP mappings with the product's checks and codes: a name (unique regardless of case), a
 * group DN, and roles that exist. A change to a mapping or its removal ends the tokens of
 * every directory user, whose roles are then read again at their next login; a new mapping
 * only grants, and reaches users at their next directory check. A mapping grants its roles
 * to a group as a user's roles grant them to a user, under the same rule (`assertMayGrant`):
 * only an admin makes a mapping that gives admin rights, or changes or deletes one.
 */
export class LdapMappingService {
  constructor(
    private readonly mappings: LdapMappingStore,
    private readonly roles: { list(): Promise<readonly { uid: number; management: Management }[]> },
    private readonly users: Pick<UserStore, 'revokeDirectoryUsers'>,
    private readonly audit: AuditLog,
  ) {}

  list(): Promise<LdapMapping[]> {
    return this.mappings.list();
  }

  async get(uid: number): Promise<LdapMapping> {
    const mapping = await this.mappings.get(uid);
    if (!mapping) throw new LdapMappingNotFoundError();
    return mapping;
  }

  async create(actor: Actor, fields: LdapMappingFields, ctx: RequestContext): Promise<LdapMapping> {
    for (const field of ['name', 'dn', 'role_uids'] as const) {
      if (fields[field] === undefined) throw new LdapFieldsError(`${field} is required`, 'missing_field');
    }
    const checked = await this.checked({
      email: '',
      email_alerts: true,
      cluster_email_alerts: false,
      ...fields,
    } as LdapMappingInput);
    assertMayGrant(actor, await this.levelsOf(checked.role_uids));
    const mapping = await this.mappings.create(checked);
    this.record(ctx, actor, 'ldap_mapping_create', mapping, Object.keys(fields));
    return mapping;
  }

  async update(actor: Actor, uid: number, fields: LdapMappingFields, ctx: RequestContext): Promise<LdapMapping> {
    const current = await this.get(uid);
    await this.assertMayChange(actor, current);
    const { uid: _, ...rest } = current;
    const checked = await this.checked({ ...rest, ...stripUndefined(fields) } as LdapMappingInput);
    assertMayGrant(actor, await this.levelsOf(checked.role_uids));
    await this.mappings.update(uid, checked);
    // Who holds which roles changed only with its group or its roles (a name, an email, alerts: nobody's rights).
    const regrants =
      normalizeDn(checked.dn) !== normalizeDn(current.dn) || !sameRoles(checked.role_uids, current.role_uids);
    if (regrants) await this.users.revokeDirectoryUsers();
    this.record(ctx, actor, 'ldap_mapping_update', current, Object.keys(fields));
    return this.get(uid);
  }

  async delete(actor: Actor, uid: number, ctx: RequestContext): Promise<void> {
    const mapping = await this.get(uid);
    await this.assertMayChange(actor, mapping);
    await this.mappings.delete(uid);
    await this.users.revokeDirectoryUsers();
    this.record(ctx, actor, 'ldap_mapping_delete', mapping);
  }

  /** How many mappings give this role (a role that one gives is in use). */
  async countGiving(roleUid: number): Promise<number> {
    return (await this.mappings.list()).filter((m) => m.role_uids.includes(roleUid)).length;
  }

  /** The roles of a user in these groups: those of every mapping whose DN is one of them. */
  async rolesFor(groupDns: readonly string[]): Promise<number[]> {
    const groups = new Set(groupDns.map(normalizeDn));
    const roles = new Set<number>();
    for (const m of await this.mappings.list()) {
      if (groups.has(normalizeDn(m.dn))) for (const r of m.role_uids) roles.add(r);
    }
    return [...roles].sort((a, b) => a - b);
  }

  /** The management levels these roles grant. */
  private async levelsOf(roleUids: readonly number[]): Promise<Management[]> {
    return (await this.roles.list()).filter((r) => roleUids.includes(r.uid)).map((r) => r.management);
  }

  /** A mapping that gives admin rights is an admin's to change or delete, as an admin is an admin's to manage. */
  private async assertMayChange(actor: Actor, mapping: LdapMapping): Promise<void> {
    if (actor.rights.includes('admin')) return;
    if ((await this.levelsOf(mapping.role_uids)).includes('admin'))
      throw new UnauthorizedActionError(
        `Only an admin may change or delete LDAP mapping ${mapping.uid} (${mapping.name}): it gives the admin role`,
      );
  }

  private async checked(m: LdapMappingInput): Promise<LdapMappingInput> {
    let name: string;
    try {
      name = validateName(m.name);
    } catch (err) {
      throw new LdapFieldsError((err as Error).message, 'invalid_name_param');
    }
    if (!isDn(m.dn))
      throw new LdapFieldsError(
        "dn must be a group's distinguished name, like cn=ops,ou=groups,dc=example,dc=com",
        'invalid_dn_param',
      );
    const roleUids = [...new Set(m.role_uids.map(Number))];
    if (roleUids.length === 0 || roleUids.some((r) => !Number.isInteger(r))) {
      throw new LdapFieldsError('role_uids must list one or more role uids', 'invalid_role_uids_param');
    }
    const known = new Set((await this.roles.list()).map((r) => r.uid));
    const unknown = roleUids.filter((r) => !known.has(r));
    if (unknown.length > 0)
      throw new LdapFieldsError(`No role has uid ${unknown.join(', ')}`, 'invalid_role_uids_param');
    if (m.email && !isEmail(m.email)) throw new InvalidRequestError('email must be an address like ops@example.com');
    return { ...m, name, dn: m.dn.trim(), role_uids: roleUids.sort((a, b) => a - b) };
  }

  private record(
    ctx: RequestContext,
    actor: Actor,
    event: AuditRecord['event'],
    mapping: LdapMapping,
    changes?: string[],
  ): void {
    this.audit.record(ctx, {
      event,
      outcome: 'success',
      ...actorOf(actor),
      target: `ldap_mapping ${mapping.uid} (${mapping.name})`,
      ...(changes && { changes }),
    });
  }
}

/** attr=value pairs separated by unescaped commas. */
function isDn(dn: unknown): dn is string {
  if (typeof dn !== 'string' || dn.trim() === '' || dn.length > 1024) return false;
  return dn
    .split(/(?<!\\),/)
    .every((rdn) => /^\s*[A-Za-z][\w-]*(\.[\w-]+)*\s*=\s*\S/.test(rdn) || /^\s*\d+(\.\d+)+\s*=/.test(rdn));
}
