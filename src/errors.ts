/** Every error code Tessera answers with; http/error-response.ts gives each its status. */
export type ErrorCode =
  | 'invalid_request'
  | 'malformed_json'
  | 'malformed_authorization_header'
  | 'password_not_complex'
  | 'new_password_same_as_current'
  | 'cannot_delete_last_password'
  | 'too_many_passwords'
  | 'missing_credentials'
  | 'invalid_credentials'
  | 'basic_auth_disabled'
  | 'password_expired'
  | 'account_locked'
  | 'invalid_token'
  | 'forbidden'
  | 'cross_site_request'
  | 'unauthorized_action'
  | 'not_found'
  | 'method_not_allowed'
  | 'user_not_found'
  | 'user_not_exist'
  | 'role_not_found'
  | 'role_in_use'
  | 'delete_builtin_role_not_allowed'
  | 'update_builtin_role_not_allowed'
  | 'change_last_admin_role_not_allowed'
  | 'delete_last_admin_not_allowed'
  | 'name_already_exists'
  | 'email_already_exists'
  | 'malformed_request'
  | 'https_required'
  | 'invalid_url'
  | 'request_timeout'
  | 'body_too_large'
  | 'expectation_failed'
  | 'headers_too_large'
  | 'unsupported_media_type'
  | 'too_many_requests'
  | 'try_again'
  | 'store_unavailable'
  | 'guard_unavailable'
  | 'not_ready'
  | 'issuer_moved'
  | 'starting'
  | 'directory_unavailable'
  | 'illegal_fields_combination'
  | 'ldap_connection_failed'
  | 'ldap_mapping_not_exist'
  | 'missing_field'
  | 'invalid_dn_param'
  | 'invalid_name_param'
  | 'invalid_role_uids_param'
  | 'directory_user'
  | 'certificate_required'
  | 'certificate_untrusted'
  | 'certificate_expired'
  | 'certificate_not_yet_valid'
  | 'certificate_subject_unknown'
  | 'certificate_user'
  | 'unknown_certificate'
  | 'invalid_certificate'
  | 'expired_certificate'
  | 'missing_param'
  | 'missing_certificate'
  | 'saml_metadata_parsing_error'
  | 'saml_metadata_validation_error'
  | 'sso_user'
  | 'sso_required'
  | 'sso_refused'
  | 'sso_no_role'
  | 'sso_confirm'
  | 'uid_already_exists'
  | 'session_not_found'
  | 'session_expired'
  | 'internal_error';

/**
 * Domain errors carry a stable machine-readable code and a human message that is safe to
 * show to the client. Which HTTP status a code gets is decided in one place only:
 * `http/error-response.ts`.
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    // An expected outcome, not a fault: a stack trace would only cost time (every failed
    // login makes one), so none is captured.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = new.target.name;
  }
}

export class InvalidRequestError extends DomainError {
  constructor(message: string, code: 'invalid_request' | 'malformed_authorization_header' = 'invalid_request') {
    super(code, message);
  }
}

/** No credentials at all were presented. */
export class MissingCredentialsError extends DomainError {
  constructor(message = 'Credentials are required') {
    super('missing_credentials', message);
  }
}

/** Unknown user, wrong password or a user that may not log in: one shape for all. */
export class InvalidCredentialsError extends DomainError {
  /** `auditReason`: why, for the audit line only (the client is told the same for every case). */
  constructor(readonly auditReason?: string) {
    super('invalid_credentials', 'Invalid username or password');
  }
}

export class PasswordExpiredError extends DomainError {
  constructor() {
    super(
      'password_expired',
      'The password has expired: set a new one with PUT /v1/users/password {"username", "old_password", "new_password"} (no token needed), or `tessera passwd`',
    );
  }
}

export class InvalidTokenError extends DomainError {
  constructor(message = 'The token is invalid or has expired') {
    super('invalid_token', message);
  }
}

/** An invalid token that was good until its exp (told apart for metrics only). */
export class TokenExpiredError extends InvalidTokenError {
  constructor() {
    super('The token has expired');
  }
}

export class MethodNotAllowedError extends DomainError {
  constructor(allow: string) {
    super('method_not_allowed', `This path takes ${allow}`);
  }
}

export class ForbiddenError extends DomainError {
  constructor(message = 'Your role does not allow this action') {
    super('forbidden', message);
  }
}

/** Ambient credentials (Basic, a client certificate) on a state-changing request from a page of another site. */
export class CrossSiteRequestError extends DomainError {
  constructor() {
    super(
      'cross_site_request',
      'A page of another site may not act with credentials the browser sends by itself (Basic, a client certificate): send a token instead',
    );
  }
}

export class UserNotFoundError extends DomainError {
  constructor() {
    super('user_not_found', 'No such user');
  }
}

export class UserAlreadyExistsError extends DomainError {
  constructor(
    code: 'name_already_exists' | 'email_already_exists' | 'uid_already_exists' = 'name_already_exists',
    message = 'A user with this name already exists',
  ) {
    super(code, message);
  }
}

export class EmailAlreadyExistsError extends UserAlreadyExistsError {
  constructor() {
    super('email_already_exists', 'A user with this email already exists');
  }
}

/** An error that tells the client when to come back (Retry-After), when that is known. */
export class RetryLaterError extends DomainError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(code, message);
  }
}

export class AccountLockedError extends RetryLaterError {
  /** `unlocksInSeconds`: undefined when only an admin can lift the lock. */
  constructor(unlocksInSeconds?: number) {
    super(
      'account_locked',
      unlocksInSeconds === undefined
        ? 'The account is locked after too many failed logins, until an admin unlocks it'
        : `The account is locked after too many failed logins; it unlocks in ${unlocksInSeconds} s, or an admin can unlock it now`,
      unlocksInSeconds,
    );
  }
}

export class TooManyRequestsError extends RetryLaterError {
  constructor(retryAfterSeconds: number) {
    super('too_many_requests', 'Too many login attempts from this address; try again later', retryAfterSeconds);
  }
}

export class TryAgainError extends RetryLaterError {
  constructor(message = 'The service is busy; try again shortly', retryAfterSeconds = 1) {
    super('try_again', message, retryAfterSeconds);
  }
}

export class UnauthorizedActionError extends DomainError {
  constructor(message = 'You may not do this to this user') {
    super('unauthorized_action', message);
  }
}

export class UserNotExistError extends DomainError {
  constructor() {
    super('user_not_exist', 'No such user');
  }
}

export class PasswordNotComplexError extends DomainError {
  constructor(message: string) {
    super('password_not_complex', message);
  }
}

export class NewPasswordSameAsCurrentError extends DomainError {
  constructor() {
    super('new_password_same_as_current', 'The new password is one the user already has');
  }
}

export class CannotDeleteLastPasswordError extends DomainError {
  constructor() {
    super('cannot_delete_last_password', 'A user keeps at least one password');
  }
}

export class TooManyPasswordsError extends DomainError {
  constructor(max: number) {
    super('too_many_passwords', `A user has at most ${max} passwords; delete one first`);
  }
}

export class LastAdminError extends DomainError {
  constructor(code: 'change_last_admin_role_not_allowed' | 'delete_last_admin_not_allowed') {
    super(code, 'The cluster must keep at least one admin');
  }
}

export class StoreUnavailableError extends RetryLaterError {
  /** `reason`: what the driver said, for the log only. */
  constructor(readonly reason?: unknown) {
    super('store_unavailable', 'The user store cannot be reached; try again shortly', 2);
  }
}

export class GuardUnavailableError extends RetryLaterError {
  constructor() {
    super('guard_unavailable', 'Logins are paused while the lockout counters cannot be reached; try again shortly', 2);
  }
}

export class NotReadyError extends RetryLaterError {
  constructor(message: string) {
    super('not_ready', message, 2);
  }
}

/** The store's tokens moved to another issuer, and the move's overlap ended: this node's no longer count. */
export class IssuerMovedError extends DomainError {
  constructor(mine: string, current: string) {
    super(
      'issuer_moved',
      `This node issues tokens as ${mine}, which the cluster no longer accepts: it moved to ${current}. Log in through another node; its operator restarts it with --public-url ${current}`,
    );
  }
}

/** The process listens but is not serving yet: the store, its migrations or the first admin are not done. */
export class StartingError extends RetryLaterError {
  constructor() {
    super('starting', 'Tessera is starting; try again in a second', 1);
  }
}

export class RoleNotFoundError extends DomainError {
  constructor() {
    super('role_not_found', 'No such role');
  }
}

export class SessionNotFoundError extends DomainError {
  constructor() {
    super('session_not_found', 'No such session of this user (it may have ended)');
  }
}

/** A session past its absolute lifetime (session_max_lifetime_minutes): refresh_jwt issues no more of its tokens. */
export class SessionExpiredError extends DomainError {
  constructor() {
    super('session_expired', 'This session reached its lifetime (session_max_lifetime_minutes): log in again');
  }
}

export class RoleInUseError extends DomainError {
  constructor(holders: number, what = 'user') {
    super('role_in_use', `The role is given to ${holders} ${what}${holders === 1 ? '' : 's'}; take it from them first`);
  }
}

/** DELETE of one of the roles every cluster starts with (uids 1..8): clients and mappings count on them. */
export class BuiltInRoleError extends DomainError {
  constructor(name: string) {
    super(
      'delete_builtin_role_not_allowed',
      `"${name}" is a built-in role: it is never deleted (make a role of your own to delete later)`,
    );
  }
}

/** A built-in role keeps its name and level: users, mappings and assertions name it by uid for that level. */
export class BuiltInRoleChangeError extends DomainError {
  constructor(name: string) {
    super(
      'update_builtin_role_not_allowed',
      `"${name}" is a built-in role: its name and management do not change (make a role of your own with the name or level you want)`,
    );
  }
}

/** Basic credentials on a route other than the login, while the cluster turned them off. */
export class BasicAuthDisabledError extends DomainError {
  constructor() {
    super(
      'basic_auth_disabled',
      'Basic credentials are accepted only by POST /v1/users/authorize on this cluster: present a token',
    );
  }
}

/** The LDAP directory did not answer in time or refused the connection: never a wrong password. */
export class DirectoryUnavailableError extends RetryLaterError {
  /** `reason`: what the client library said, for the log only. */
  constructor(readonly reason?: unknown) {
    super('directory_unavailable', 'The LDAP directory cannot be reached; try again shortly', 2);
  }
}

/** A PUT /v1/cluster/ldap or an LDAP mapping whose fields do not go together (the product's codes). */
export class LdapFieldsError extends DomainError {
  constructor(
    message: string,
    code:
      | 'illegal_fields_combination'
      | 'missing_field'
      | 'invalid_dn_param'
      | 'invalid_name_param'
      | 'invalid_role_uids_param' = 'illegal_fields_combination',
  ) {
    super(code, message);
  }
}

/** The LDAP settings given could not connect or bind: refused with the directory's reason, not stored. */
export class LdapConnectionError extends DomainError {
  constructor(reason: string) {
    super('ldap_connection_failed', `The LDAP directory refused these settings: ${reason}`);
  }
}

export class LdapMappingNotFoundError extends DomainError {
  constructor() {
    super('ldap_mapping_not_exist', 'No such LDAP mapping');
  }
}

/** A change that only a local user can take (a password, a name), asked of a directory user. */
export class DirectoryUserError extends DomainError {
  constructor(message = 'This user logs in through the LDAP directory: change it there') {
    super('directory_user', message);
  }
}

/** A client certificate that logs no one in, with the reason's own code (all 401). */
export class CertificateRefusedError extends DomainError {
  constructor(
    code:
      | 'certificate_required'
      | 'certificate_untrusted'
      | 'certificate_expired'
      | 'certificate_not_yet_valid'
      | 'certificate_subject_unknown',
    message: string,
  ) {
    super(code, message);
  }
}

/** A password asked of (or given to) a user who logs in with a client certificate. */
export class CertificateUserError extends DomainError {
  constructor(message = 'This user logs in with a client certificate: it has no password') {
    super('certificate_user', message);
  }
}

/** PUT/DELETE /v1/cluster/certificates: a certificate Tessera does not keep, or one it cannot take. */
export class ClusterCertificateError extends DomainError {
  constructor(code: 'unknown_certificate' | 'invalid_certificate' | 'expired_certificate', message: string) {
    super(code, message);
  }
}

/** /v1/cluster/sso: what turning SSO on needs, or IdP metadata that cannot be taken. */
export class SsoConfigError extends DomainError {
  constructor(
    code: 'missing_param' | 'missing_certificate' | 'saml_metadata_parsing_error' | 'saml_metadata_validation_error',
    message: string,
  ) {
    super(code, message);
  }
}

/** A password asked of (or given to) a user who signs in through the identity provider. */
export class SsoUserError extends DomainError {
  constructor(message = 'This user signs in with SSO, through the identity provider: it has no password') {
    super('sso_user', message);
  }
}

/** A password login of a user who is not an admin while the cluster enforces SSO. */
export class SsoRequiredError extends DomainError {
  constructor() {
    super(
      'sso_required',
      'This cluster requires users who are not admins to sign in with SSO, through the identity provider',
    );
  }
}

/**
 * An SSO sign-in refused: an answer of the identity provider that does not prove who it is
 * for (`sso_refused`; why goes to the audit line only), or a person the cluster has no role
 * for (`sso_no_role`).
 */
export class SsoRefusedError extends DomainError {
  constructor(
    code: 'sso_refused' | 'sso_no_role',
    message: string,
    /** For the audit line, never the client. */
    readonly auditReason?: string,
  ) {
    super(code, message);
  }
}

/**
 * An SSO sign-in that nobody asked for here (IdP-initiated) waits for the person to say it is
 * theirs: a page of another site could otherwise sign a browser in as someone else.
 */
export class SsoConfirmError extends DomainError {
  constructor(readonly username: string) {
    super('sso_confirm', `Your identity provider signed you in as ${username}. Continue as ${username}?`);
  }
}
