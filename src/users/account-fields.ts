import { BUILT_IN_ROLE_OF_LEVEL } from '../access/built-in-roles.js';
import type { Role } from '../access/management.js';
import { highest, rightsFrom } from '../access/management.js';
import { EmailAlreadyExistsError, InvalidRequestError, UserAlreadyExistsError } from '../errors.js';
import type { AccountDeps } from './account-deps.js';
import type { AuthMethod } from './user.js';

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

/** `email: ""` is the product's "no email". */
export function withoutEmptyEmail<T extends { email?: string | null }>(input: T): T {
  return input.email === '' ? { ...input, email: null } : input;
}

/**
 * The roles a write gives (`role_uids` is the one source; a `role` alone, or beside an empty
 * `role_uids`, means the built-in role of that level; neither keeps `current`) and the rights
 * they grant. A `role` beside roles reads as it is read back: it must name their highest
 * level. An unknown uid is refused.
 */
export async function rolesOf(
  roles: AccountDeps['roles'],
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
  const all = await roles.list();
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

/**
 * Names and emails are one account's across every way in: not another user's here, and a
 * new name not somebody's in the directory either (who would then never log in with it).
 */
export async function assertLoginsFree(
  deps: Pick<AccountDeps, 'users' | 'identities'>,
  logins: { name: string | null; email: string | null },
  exceptUid?: number,
): Promise<void> {
  const taken = await deps.users.takenLogins(logins, exceptUid);
  if (taken === 'name') throw new UserAlreadyExistsError();
  if (taken === 'email') throw new EmailAlreadyExistsError();
  const elsewhere = logins.name === null ? undefined : await deps.identities.nameTaken(logins.name);
  if (elsewhere)
    throw new UserAlreadyExistsError(
      'name_already_exists',
      `The ${elsewhere === 'ldap' ? 'LDAP directory' : elsewhere} has a user of this name`,
    );
}

/**
 * A certificate_subject_line as the product takes it: RFC 2253, the CN first, no space after
 * the commas (it must equal the certificate's subject exactly).
 */
export function checkSubjectLine(line: string | undefined): string {
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
