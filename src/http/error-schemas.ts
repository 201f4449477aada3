import Type, { type TSchema } from 'typebox';
import { isPermission } from '../access/permissions.js';
import type { ErrorCode } from '../errors.js';
import type { Access } from './authenticate.js';
import { waitsForAuditing } from './changes.js';
import { STATUS_BY_CODE } from './error-response.js';
import { StringEnum } from './schemas.js';
import type { TesseraApp } from './tessera-app.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The error codes this route's own logic answers with (those of its access and input are added). */
    errors?: ErrorCode[];
  }
}

/** What presenting credentials can answer, by the route's access. */
const PASSWORD_OR_TOKEN: ErrorCode[] = [
  ...([
    'missing_credentials',
    'malformed_authorization_header',
    'invalid_token',
    'invalid_credentials',
    'password_expired',
    'sso_required',
    'mfa_required',
    'mfa_enrolment_required',
  ] as const),
  ...([
    'account_locked',
    'basic_auth_disabled',
    'too_many_requests',
    'try_again',
    'guard_unavailable',
    'store_unavailable',
    'directory_unavailable',
  ] as const),
  ...([
    'certificate_untrusted',
    'certificate_expired',
    'certificate_not_yet_valid',
    'certificate_subject_unknown',
    'cross_site_request',
  ] as const),
  ...(['invalid_api_key', 'api_key_expired', 'api_key_address_refused'] as const),
];
/** What a client certificate can answer. */
export const CERTIFICATE_REFUSALS: ErrorCode[] = [
  'certificate_required',
  'certificate_untrusted',
  'certificate_expired',
  'certificate_not_yet_valid',
  'certificate_subject_unknown',
];
const TOKEN_ONLY: ErrorCode[] = [
  'missing_credentials',
  'malformed_authorization_header',
  'invalid_token',
  'invalid_request',
  'api_key_address_refused',
];

function accessCodes(access: Access | undefined): ErrorCode[] {
  if (access === undefined || access === 'public') return [];
  if (access === 'token') return TOKEN_ONLY;
  return isPermission(access) ? [...PASSWORD_OR_TOKEN, 'forbidden'] : PASSWORD_OR_TOKEN;
}

/** What a login's first step answers beside mfa_required (POST /v1/users/authorize), for its second (POST /v1/users/authorize/mfa). */
const MFA_CHALLENGE = {
  mfa_token: Type.Optional(
    Type.String({ description: 'mfa_required at a login: single use, for this client, 5 minutes' }),
  ),
  methods: Type.Optional(
    Type.Array(StringEnum(['totp', 'webauthn', 'recovery_code']), {
      description: 'the second factors open to the user',
    }),
  ),
  webauthn: Type.Optional(
    Type.Unknown({
      description: "WebAuthn's request options (PublicKeyCredentialRequestOptionsJSON), when the user has a passkey",
    }),
  ),
};

/** The error answers of these codes, one per status, each listing its codes (checked by the tests). */
export function errorResponses(codes: Iterable<ErrorCode>): Record<string, TSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes))
    byStatus.set(STATUS_BY_CODE[code], [...(byStatus.get(STATUS_BY_CODE[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      String(status),
      Type.Object(
        {
          error_code: StringEnum(list.sort()),
          message: Type.String({ description: 'what happened and what to do, for people' }),
          ...(list.includes('mfa_required') && MFA_CHALLENGE),
        },
        { description: list.join(', ') },
      ),
    ]),
  );
}

/**
 * Every route's document lists each status it can answer with the error codes of each:
 * those of the route's own logic (`config.errors`), of its access (credentials, permission)
 * and of its input (a body, parameters), and a fault of ours (500).
 */
export function documentErrors(app: TesseraApp): void {
  app.addHook('onRoute', (route) => {
    if (!route.schema || route.schema.hide) return;
    const schema = route.schema as {
      body?: unknown;
      params?: unknown;
      querystring?: unknown;
      response?: Record<string, unknown>;
    };
    const input: ErrorCode[] = [
      ...(schema.body ? (['invalid_request', 'malformed_json', 'body_too_large'] as const) : []),
      ...(schema.params || schema.querystring ? (['invalid_request'] as const) : []),
    ];
    const codes = [
      ...(route.config?.errors ?? []),
      ...accessCodes(route.config?.access),
      ...input,
      'internal_error' as const,
      ...(route.config?.whileStarting ? [] : (['starting'] as const)),
      ...(waitsForAuditing(route) ? (['audit_backlog_full'] as const) : []),
    ];
    schema.response = { ...schema.response, ...errorResponses(codes) };
  });
}

/** What a change to a user named by its uid can answer besides its own codes. */
export const USER_CHANGE_ERRORS: ErrorCode[] = [
  'user_not_found',
  'unauthorized_action',
  'directory_user',
  'certificate_user',
  'sso_user',
];
