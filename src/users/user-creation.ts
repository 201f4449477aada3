import type { Actor } from '../access/actor.js';
import { BUILT_IN_ROLE_OF_LEVEL } from '../access/built-in-roles.js';
import type { RequestContext } from '../audit/audit-log.js';
import { CertificateUserError, InvalidRequestError, SsoUserError, UserAlreadyExistsError } from '../errors.js';
import { assertMayGrant } from './account-access.js';
import { type AccountDeps, auditChange } from './account-deps.js';
import { assertLoginsFree, checkSubjectLine, rolesOf, type UserFields, withoutEmptyEmail } from './account-fields.js';
import { clusterOf, hashOf, newPassword, type PasswordHashMethod } from './new-password.js';
import { checkNewPassword } from './password-rules.js';
import type { User } from './user.js';
import type { UserProfile } from './user-store.js';
import { isEmail, validateEmail, validateUserName } from './username.js';

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

/** A user made with neither `role` nor `role_uids` gets the product's default: db_viewer. */
const DEFAULT_ROLE = 'db_viewer';

/** Making a user (POST /v1/users, `tessera users add`, an import, the first admin): checked, stored, audited. */
export class UserCreation {
  constructor(
    private readonly deps: Pick<
      AccountDeps,
      'users' | 'roles' | 'hasher' | 'policy' | 'audit' | 'clock' | 'identities' | 'clusterName'
    >,
  ) {}

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
    const service = input.auth_method === 'api_key';
    if (service && input.password !== undefined)
      throw new InvalidRequestError(
        'A user with auth_method "api_key" (a service account) logs in with its API keys only: give no password, then POST /v1/users/{uid}/api_keys',
      );
    if (
      sso &&
      (input.email ?? (input.username && isEmail(input.username) ? input.username : undefined)) === undefined
    ) {
      throw new InvalidRequestError(
        'A user with auth_method "sso" needs its "email": the identity provider names it by its email',
      );
    }
    if (!certificate && !sso && !service && input.password === undefined)
      throw new InvalidRequestError(
        'Give a "password" (or auth_method "certificate" and certificate_subject_line, or "api_key" for a service account)',
      );
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
    const { roleUids, rights } = await rolesOf(this.deps.roles, input, [BUILT_IN_ROLE_OF_LEVEL[DEFAULT_ROLE]]);
    assertMayGrant(actor, rights);
    const password =
      input.password === undefined
        ? undefined
        : newPassword(input.password, input.password_hash_method, moved.clusterName);
    // A pre-hashed password met the product's rules when it was chosen; its text is not here to check.
    if (typeof password === 'string') await checkNewPassword(password, logins, await this.deps.policy.get());
    else if (password !== undefined) await clusterOf(this.deps, password);
    const profile: UserProfile = {
      ...logins,
      roleUids,
      authMethod: input.auth_method ?? 'regular',
      emailAlerts: input.email_alerts ?? true,
      clusterEmailAlerts: input.cluster_email_alerts ?? false,
      bdbsEmailAlerts: input.bdbs_email_alerts ?? null,
      ...(subjectLine && { certificateSubjectLine: subjectLine }),
    };
    await assertLoginsFree(this.deps, logins);
    if (subjectLine && (await this.deps.users.findByCertificateSubject(subjectLine))) {
      throw new UserAlreadyExistsError(
        'name_already_exists',
        'A user with this certificate_subject_line already exists',
      );
    }
    if (dryRun) return undefined;
    const user = await this.deps.users.create({
      ...profile,
      ...(password !== undefined && { passwordHash: await hashOf(this.deps, password, logins) }),
      passwordIssueDate: moved.passwordIssueDate ?? new Date(this.deps.clock()),
    });
    auditChange(this.deps.audit, ctx, actor, user, {
      event: 'user_create',
      changes: Object.keys(input)
        .filter((k) => k !== 'password')
        .concat(input.password !== undefined ? ['password'] : []),
    });
    return user;
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

/** The CN of an RFC 2253 subject line (the first attribute, unescaped enough for a login name). */
function commonName(line: string): string {
  const first = line.split(/(?<!\\),/)[0]!;
  return first.slice(3).replace(/\\(.)/g, '$1');
}
