import Value from 'typebox/value';
import { isRole, type Role } from '../access/management.js';
import { checkedScopes, type ResourceScope, ResourceScopes, sameScopes } from '../access/resource-scopes.js';
import { CLI_CONTEXT, type RequestContext } from '../audit/audit-log.js';
import { DomainError, InvalidRequestError, RetryLaterError } from '../errors.js';
import { validationMessage } from '../schema/validation-message.js';
import { atomically } from '../unit-of-work.js';
import type { NewAccount, UserCreation } from './user-creation.js';
import type { UserStore } from './user-store.js';
import { CreateUserBody } from './user-write-schemas.js';

/**
 * Moving users in from a cluster of the product: what its GET /v1/users answers (each user
 * with its `password` pre-hashed and `password_hash_method: 1`, or a certificate or SSO user
 * without one), and optionally its GET /v1/roles, as `{"roles": [...], "users": [...]}` or the
 * users' array alone. Roles are matched by name (or made, with their uid when it is free), so
 * that the users' role_uids point at the same roles here; a role uid that is not one of the
 * file's roles is refused (a role here with that uid may be another one). A user whose name or email is
 * taken is left as it is; one that cannot be made is refused with the reason; the others are
 * made as POST /v1/users would make them (the same checks, audited).
 */

export type ImportOutcome = 'created' | 'would create' | 'exists' | 'refused';

export interface ImportLine {
  kind: 'role' | 'user';
  /** Its name (or email) in the file, or its place there when it has none (#1 the first). */
  who: string;
  outcome: ImportOutcome;
  /** The uid here, when it has one. */
  uid?: number;
  detail?: string;
}

export interface ImportOptions {
  dryRun: boolean;
  /** The exporting cluster's name: the "clustername" of its pre-hashed passwords. */
  clusterName: string;
}

/** The roles an import matches by name and makes (the roles' service has these: the users never import it). */
export interface ImportRoles {
  list(): Promise<readonly { uid: number; name: string; management: Role; resources: readonly ResourceScope[] }[]>;
  create(
    actor: null,
    input: { name: string; management: Role; uid?: number; resources?: ResourceScope[] },
    ctx: RequestContext,
    dryRun: boolean,
  ): Promise<{ uid: number } | undefined>;
}

export interface ImportTarget {
  userCreation: Pick<UserCreation, 'create'>;
  roles: ImportRoles;
  users: Pick<UserStore, 'findByUsername'>;
}

/** The fields of the product's user object that a user is made with; the read-only rest is not read. */
const WRITABLE = [
  'name',
  'email',
  'role',
  'role_uids',
  'auth_method',
  'email_alerts',
  'cluster_email_alerts',
  'bdbs_email_alerts',
  'certificate_subject_line',
  'password',
  'password_hash_method',
] as const;

/** The file's roles and users, or a 400 that says what the file must be. */
export function readExport(data: unknown): { roles: unknown[]; users: unknown[] } {
  if (Array.isArray(data)) return { roles: [], users: data };
  if (data !== null && typeof data === 'object' && Array.isArray((data as { users?: unknown }).users)) {
    const { roles = [], users } = data as { roles?: unknown; users: unknown[] };
    if (!Array.isArray(roles)) throw new InvalidRequestError('"roles" must be an array (what GET /v1/roles answers)');
    return { roles, users };
  }
  throw new InvalidRequestError(
    'Expected what GET /v1/users answers (an array of users), or {"roles": [...], "users": [...]}',
  );
}

/** Whether any user of the file brings a pre-hashed password (which needs the exporting cluster's name). */
export function hasPreHashed(users: readonly unknown[]): boolean {
  return users.some(
    (u) =>
      u !== null &&
      typeof u === 'object' &&
      (u as { password_hash_method?: unknown }).password_hash_method !== undefined,
  );
}

export async function importUsers(target: ImportTarget, data: unknown, options: ImportOptions): Promise<ImportLine[]> {
  const { roles, users } = readExport(data);
  const lines: ImportLine[] = [];
  /** The file's role uids, each with its uid here (undefined: a dry run would make it). */
  const roleUids = new Map<number, number | undefined>();
  // A uid that two roles of the file claim names neither: their users are refused.
  const uids = roles.map((r) => (r !== null && typeof r === 'object' ? (r as { uid?: unknown }).uid : undefined));
  const twice = new Set(uids.filter((uid, i) => uid !== undefined && uids.indexOf(uid) !== i));
  for (const [i, role] of roles.entries()) {
    lines.push(
      twice.has(uids[i])
        ? {
            kind: 'role',
            who: roleName(role, i),
            outcome: 'refused',
            detail: `uid ${String(uids[i])} is given to more than one role of the file`,
          }
        : await atomically(() => importRole(target, role, i, options, roleUids)),
    );
  }
  // Each role and each user is one change, made with its event or not at all (never the whole file in one transaction).
  for (const [i, user] of users.entries())
    lines.push(await atomically(() => importUser(target, user, i, options, roleUids)));
  return lines;
}

async function importRole(
  target: ImportTarget,
  given: unknown,
  index: number,
  { dryRun }: ImportOptions,
  roleUids: Map<number, number | undefined>,
): Promise<ImportLine> {
  const role = given as { uid?: unknown; name?: unknown; management?: unknown; resources?: unknown } | null;
  const who = roleName(given, index);
  const line = (outcome: ImportOutcome, detail?: string, uid?: number): ImportLine => ({
    kind: 'role',
    who,
    outcome,
    ...(uid !== undefined && { uid }),
    ...(detail && { detail }),
  });
  if (
    role === null ||
    typeof role !== 'object' ||
    typeof role.name !== 'string' ||
    typeof role.management !== 'string' ||
    !isRole(role.management)
  ) {
    return line('refused', 'a role has a "name" and a "management" level (what GET /v1/roles answers)');
  }
  // The databases a role is limited to (8.2): dropped, they would give its users every database.
  const scopes = role.resources ?? [];
  if (!Value.Check(ResourceScopes, scopes))
    return line('refused', `resources: ${validationMessage([...Value.Errors(ResourceScopes, scopes)], 'resources')}`);
  let resources: ResourceScope[];
  try {
    resources = checkedScopes(role.management, scopes);
  } catch (error) {
    return refusal(error, line);
  }
  const uid = Number.isSafeInteger(role.uid) ? (role.uid as number) : undefined;
  const here = (await target.roles.list()).find((r) => r.name === role.name);
  if (here) {
    // Another level under the same name would give the file's users rights they never had (or take some away).
    if (here.management !== role.management)
      return line(
        'refused',
        `a role of this name here grants ${here.management}, not ${role.management}: rename one of them first; its users are refused`,
        here.uid,
      );
    if (!sameScopes(here.resources, resources))
      return line(
        'refused',
        'a role of this name here is limited to other databases ("resources"): rename one of them first; its users are refused',
        here.uid,
      );
    if (uid !== undefined) roleUids.set(uid, here.uid);
    return line('exists', undefined, here.uid);
  }
  try {
    const input = { name: role.name, management: role.management, ...(resources.length > 0 && { resources }) };
    const free = uid !== undefined && uid > 100 && !(await target.roles.list()).some((r) => r.uid === uid);
    const made = await target.roles.create(null, free ? { ...input, uid } : input, CLI_CONTEXT, dryRun);
    if (uid !== undefined) roleUids.set(uid, made?.uid);
    return made ? line('created', undefined, made.uid) : line('would create');
  } catch (error) {
    return refusal(error, line);
  }
}

async function importUser(
  target: ImportTarget,
  given: unknown,
  index: number,
  options: ImportOptions,
  roleUids: Map<number, number | undefined>,
): Promise<ImportLine> {
  const user = (given !== null && typeof given === 'object' ? given : {}) as Record<string, unknown>;
  const fields: Record<string, unknown> = {};
  for (const key of WRITABLE) if (user[key] !== undefined && user[key] !== '') fields[key] = user[key];
  const who = String(fields.name ?? fields.email ?? `#${index + 1}`);
  const line = (outcome: ImportOutcome, detail?: string, uid?: number): ImportLine => ({
    kind: 'user',
    who,
    outcome,
    ...(uid !== undefined && { uid }),
    ...(detail && { detail }),
  });
  if (given === null || typeof given !== 'object' || Array.isArray(given))
    return line('refused', 'a user is a JSON object (what GET /v1/users answers)');
  if (!Value.Check(CreateUserBody, fields)) {
    return line('refused', validationMessage([...Value.Errors(CreateUserBody, fields)], 'user'));
  }
  const account = fields as NewAccount;
  const method = account.auth_method ?? 'regular';
  // A hash without its method would become the password itself: whoever holds the file would log in with it.
  if (account.password !== undefined && account.password_hash_method === undefined) {
    return line(
      'refused',
      'a password without "password_hash_method": 1 — an export carries pre-hashed passwords only',
    );
  }
  if (method === 'regular' && account.password === undefined) {
    return line(
      'refused',
      'no password: give its pre-hashed one ("password" and "password_hash_method": 1), or add it with `tessera users add`',
    );
  }
  for (const login of [account.name, account.email]) {
    const taken = typeof login === 'string' ? await target.users.findByUsername(login) : undefined;
    if (taken) return line('exists', `${taken.username} is here already: left as it is`, taken.uid);
  }
  // The exporting cluster's uids: a role here of the same uid may be another (an admin one); only those matched by name count.
  const unknown = account.role_uids?.find((uid) => !roleUids.has(uid));
  if (unknown !== undefined)
    return line(
      'refused',
      `role_uids: ${unknown} is not one of the file's roles (give GET /v1/roles as "roles", matched here by name)`,
    );
  // The product's role_uids are its users' roles; `role` beside them only names their highest level (the product's older
  // exports leave it as it was before roles): here too they are the one source.
  if (account.role_uids?.length) delete account.role;
  // A dry run makes no role: its users are checked without the roles that it would make.
  if (account.role_uids)
    account.role_uids = account.role_uids.flatMap((uid) => (roleUids.has(uid) ? (roleUids.get(uid) ?? []) : uid));
  const date = typeof user.password_issue_date === 'string' ? new Date(user.password_issue_date) : undefined;
  // Never later than now: a date to come would hold off the password's expiry.
  const issued = date && new Date(Math.min(date.getTime(), Date.now()));
  try {
    const made = await target.userCreation.create(null, account, CLI_CONTEXT, {
      dryRun: options.dryRun,
      clusterName: options.clusterName,
      ...(issued && !Number.isNaN(issued.getTime()) && { passwordIssueDate: issued }),
    });
    return made ? line('created', undefined, made.uid) : line('would create');
  } catch (error) {
    return refusal(error, line);
  }
}

function roleName(given: unknown, index: number): string {
  const name = given !== null && typeof given === 'object' ? (given as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? name : `#${index + 1}`;
}

/** A refusal of the domain is the line's reason; anything else (the store gone) ends the import. */
function refusal(error: unknown, line: (outcome: ImportOutcome, detail?: string) => ImportLine): ImportLine {
  if (error instanceof DomainError && !(error instanceof RetryLaterError)) return line('refused', error.message);
  throw error;
}
