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
  | 'rotation_unsupported'
  | 'delete_required_certificate_not_allowed'
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
  | 'invalid_api_key'
  | 'api_key_expired'
  | 'api_key_address_refused'
  | 'api_key_not_found'
  | 'too_many_api_keys'
  | 'mfa_required'
  | 'mfa_enrolment_required'
  | 'invalid_mfa_code'
  | 'invalid_mfa_token'
  | 'invalid_mfa_response'
  | 'mfa_fresh_required'
  | 'mfa_factor_not_found'
  | 'too_many_mfa_factors'
  | 'invalid_audit_sink'
  | 'audit_config_not_found'
  | 'audit_backlog_full'
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
