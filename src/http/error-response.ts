import type { FastifyError, FastifyInstance } from 'fastify';
import { DomainError, type ErrorCode, MfaRequiredError, RetryLaterError, StoreUnavailableError } from '../errors.js';
import { type SchemaError, validationMessage } from '../schema/validation-message.js';
import { isStoreUnavailable } from '../store/store-errors.js';
import { fromBrowser } from './cross-site.js';

/** The one place where error codes become HTTP statuses: every code has one (the compiler checks). */
export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  invalid_request: 400,
  malformed_json: 400,
  malformed_authorization_header: 400,
  password_not_complex: 400,
  new_password_same_as_current: 400,
  cannot_delete_last_password: 400,
  too_many_passwords: 400,
  missing_credentials: 401,
  invalid_credentials: 401,
  basic_auth_disabled: 401,
  password_expired: 401,
  account_locked: 401,
  invalid_token: 401,
  forbidden: 403,
  cross_site_request: 403,
  unauthorized_action: 403,
  not_found: 404,
  method_not_allowed: 405,
  user_not_found: 404,
  user_not_exist: 404,
  role_not_found: 404,
  role_in_use: 406,
  delete_builtin_role_not_allowed: 406,
  update_builtin_role_not_allowed: 406,
  change_last_admin_role_not_allowed: 406,
  delete_last_admin_not_allowed: 406,
  name_already_exists: 409,
  email_already_exists: 409,
  malformed_request: 400,
  https_required: 400,
  invalid_url: 400,
  request_timeout: 408,
  body_too_large: 413,
  expectation_failed: 417,
  headers_too_large: 431,
  unsupported_media_type: 415,
  too_many_requests: 429,
  try_again: 503,
  store_unavailable: 503,
  audit_backlog_full: 503,
  invalid_audit_sink: 400,
  audit_config_not_found: 404,
  guard_unavailable: 503,
  not_ready: 503,
  issuer_moved: 503,
  starting: 503,
  directory_unavailable: 503,
  illegal_fields_combination: 400,
  ldap_connection_failed: 400,
  ldap_mapping_not_exist: 404,
  missing_field: 400,
  invalid_dn_param: 400,
  invalid_name_param: 400,
  invalid_role_uids_param: 400,
  directory_user: 400,
  certificate_required: 401,
  certificate_untrusted: 401,
  certificate_expired: 401,
  certificate_not_yet_valid: 401,
  certificate_subject_unknown: 401,
  certificate_user: 400,
  unknown_certificate: 403,
  missing_param: 400,
  missing_certificate: 406,
  saml_metadata_parsing_error: 400,
  saml_metadata_validation_error: 400,
  sso_user: 400,
  sso_required: 401,
  sso_refused: 401,
  sso_no_role: 401,
  sso_confirm: 409,
  uid_already_exists: 409,
  session_not_found: 404,
  session_expired: 401,
  invalid_certificate: 400,
  expired_certificate: 406,
  rotation_unsupported: 403,
  delete_required_certificate_not_allowed: 403,
  invalid_api_key: 401,
  api_key_expired: 401,
  api_key_address_refused: 401,
  api_key_not_found: 404,
  too_many_api_keys: 409,
  mfa_required: 401,
  mfa_enrolment_required: 403,
  invalid_mfa_code: 401,
  invalid_mfa_token: 401,
  invalid_mfa_response: 400,
  mfa_fresh_required: 403,
  mfa_factor_not_found: 404,
  too_many_mfa_factors: 409,
  internal_error: 500,
};

/** Challenges sent with every 401 (RFC 9110 §11.6.1): both ways to present credentials. */
export const WWW_AUTHENTICATE = 'Basic realm="tessera", charset="UTF-8", Bearer realm="tessera"';
/**
 * The challenge for a browser's request (Fetch Metadata, a page's Accept, the console's
 * X-Requested-With): without Basic, so that a browser never asks for, and never caches,
 * credentials it would then send by itself to any page's requests.
 */
export const WWW_AUTHENTICATE_BROWSER = 'Bearer realm="tessera"';

export interface ErrorBody {
  error_code: string;
  message: string;
}

/** The status of an error code (400 for codes of a bad request that the map does not name). */
export function statusOf(code: string): number {
  return STATUS_BY_CODE[code as ErrorCode] ?? 400;
}

export function toErrorResponse(err: unknown): { status: number; body: ErrorBody } {
  if (err instanceof DomainError) {
    const body = { error_code: err.code, message: err.message };
    // A login's first step: the second's challenge beside the code.
    if (err instanceof MfaRequiredError && err.challenge) return { status: 401, body: { ...body, ...err.challenge } };
    return { status: statusOf(err.code), body };
  }
  const e = err as Partial<FastifyError>;
  if (e.validation) {
    const message = validationMessage(e.validation as SchemaError[], e.validationContext ?? 'body');
    return { status: 400, body: { error_code: 'invalid_request', message } };
  }
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, body: { error_code: 'body_too_large', message: 'The request body is too large' } };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, body: { error_code: 'unsupported_media_type', message: 'Send a JSON body' } };
  }
  // Parser errors can quote the body, which may hold a password: never echo their text.
  if (err instanceof SyntaxError || e.code?.startsWith('FST_ERR_CTP_')) {
    return { status: 400, body: { error_code: 'malformed_json', message: 'The body is not valid JSON' } };
  }
  if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
    return {
      status: e.statusCode,
      body: { error_code: 'invalid_request', message: 'The request could not be understood' },
    };
  }
  return { status: 500, body: { error_code: 'internal_error', message: 'Internal server error' } };
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err, request, reply) => {
    const known = isStoreUnavailable(err) ? new StoreUnavailableError(err) : err;
    const { status, body } = toErrorResponse(known);
    // Expected refusals are in the access line (status) and, for security events, the
    // audit line; only faults of ours are logged here, with their detail.
    if (status >= 500 && !(known instanceof DomainError)) request.log.error({ err }, 'request failed');
    if (known instanceof StoreUnavailableError) {
      request.server.services.metrics.storeUnavailable();
      request.log.warn({ reason: reasonOf(known.reason) }, 'store unavailable');
    }
    if (status === 401) {
      reply.header('www-authenticate', fromBrowser(request) ? WWW_AUTHENTICATE_BROWSER : WWW_AUTHENTICATE);
    }
    if (known instanceof RetryLaterError && known.retryAfterSeconds !== undefined) {
      reply.header('retry-after', String(known.retryAfterSeconds));
    }
    return reply.code(status).send(body);
  });
  const { metricsListen } = app.services.config;
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    // A Prometheus job pointed at the API's port is told where its metrics are.
    const hint =
      path !== '/metrics'
        ? ''
        : metricsListen
          ? `: ${path} is served by the management listener, http://${metricsListen.host}:${metricsListen.port}${path} (--metrics-listen)`
          : `: ${path} is served by the management listener, which is off (--metrics-listen)`;
    return reply.code(404).send({ error_code: 'not_found', message: `No route for ${request.method} ${path}${hint}` });
  });
}

function reasonOf(cause: unknown): string | undefined {
  return cause instanceof Error ? cause.message : cause === undefined ? undefined : String(cause);
}
