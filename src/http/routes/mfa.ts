import type { FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { ErrorCode } from '../../errors.js';
import type { MfaActor } from '../../mfa/mfa-service.js';
import { callerOf } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { CALLER, Ok, UidParams } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

const FactorView = Type.Object({
  factor_id: Type.String(),
  type: Type.Union([Type.Literal('totp'), Type.Literal('webauthn')], {
    description: 'totp: an authenticator app; webauthn: a passkey or security key',
  }),
  name: Type.String(),
  created: Type.String({ description: 'ISO 8601' }),
  last_used: Type.Optional(Type.String({ description: 'ISO 8601 (absent: never used)' })),
});
const RecoveryCodes = Type.Array(Type.String(), {
  description: 'ten single-use codes (xxxx-xxxx-xxxx) that stand in for a lost factor: shown this once',
});
const Enrolled = Type.Object({
  factor: FactorView,
  recovery_codes: Type.Optional(RecoveryCodes),
});
const Name = Type.String({ minLength: 1, maxLength: 100, description: 'what it is ("phone", "YubiKey")' });
const FactorParams = Type.Object({
  ...UidParams.properties,
  factor_id: Type.String({ pattern: '^mf_[A-Za-z0-9_-]{16}$', description: 'a factor_id (mf_…)' }),
});
/** WebAuthn's JSON (the browser's answer): checked by @simplewebauthn/server, not by a schema. */
const WebAuthnJson = Type.Object(
  {},
  { additionalProperties: true, description: 'WebAuthn JSON, as the browser gives it' },
);
const ERRORS: ErrorCode[] = ['forbidden', 'unauthorized_action', 'user_not_found', 'mfa_fresh_required'];

/** The caller, with when its token's second factor was proven. */
function actorOf(request: FastifyRequest): MfaActor {
  const caller = callerOf(request);
  return { ...caller, mfaAt: caller.token?.mfa_at };
}

/**
 * A user's second factors (Tessera's; in the product's style): an authenticator app (TOTP) or
 * passkeys (WebAuthn), enrolled by the user for itself, with ten recovery codes at the first;
 * listed by who may see the user; removed by the user (with a second factor proven in the last
 * 15 minutes) or reset by who may manage it. Every route here is open to a token for enrolling
 * only, for its own user.
 */
export function mfaRoutes(app: TesseraApp, { mfa }: Pick<HttpServices, 'mfa'>): void {
  const doc = { tags: ['second factors'], security: CALLER };
  const config = (errors: ErrorCode[] = []) => ({
    access: 'caller' as const,
    enrolment: true,
    errors: [...ERRORS, ...errors],
  });
  app.get(
    '/v1/users/:uid/mfa',
    {
      config: config(),
      schema: {
        ...doc,
        summary: "A user's second factors, never a secret (yourself, or view_user_info)",
        params: UidParams,
        response: {
          200: Type.Object({
            factors: Type.Array(FactorView),
            recovery_codes_remaining: Type.Integer(),
            mfa_required: Type.Boolean({ description: 'a role of the user requires a second factor' }),
          }),
        },
      },
    },
    (request) => mfa.list(actorOf(request), Number(request.params.uid)),
  );
  app.post(
    '/v1/users/:uid/mfa/totp',
    {
      config: config(['too_many_mfa_factors']),
      schema: {
        ...doc,
        summary:
          'Start an authenticator app: its secret and otpauth:// URL (for a QR code), waiting 15 minutes for its first code (yourself)',
        params: UidParams,
        body: Type.Optional(Type.Object({ name: Type.Optional(Name) }, { additionalProperties: false })),
        response: {
          200: Type.Object({
            ...FactorView.properties,
            secret: Type.String({ description: 'base32, for typing into the app: shown this once' }),
            otpauth_url: Type.String({ description: 'otpauth://totp/…: what a QR code holds' }),
          }),
        },
      },
    },
    (request) => mfa.startTotp(actorOf(request), Number(request.params.uid), request.body?.name),
  );
  app.post(
    '/v1/users/:uid/mfa/totp/verify',
    {
      config: config(['invalid_mfa_response', 'too_many_mfa_factors']),
      schema: {
        ...doc,
        summary:
          'Turn the waiting authenticator app on with a code it shows; the first factor brings ten recovery codes, shown once (yourself)',
        params: UidParams,
        body: Type.Object(
          { code: Type.String({ minLength: 1, maxLength: 16, description: 'the six digits the app shows' }) },
          { additionalProperties: false },
        ),
        response: { 200: Enrolled },
      },
    },
    (request) => mfa.verifyTotp(actorOf(request), Number(request.params.uid), request.body.code, contextOf(request)),
  );
  app.post(
    '/v1/users/:uid/mfa/webauthn/options',
    {
      config: config(),
      schema: {
        ...doc,
        summary: "WebAuthn's registration options for a new passkey (navigator.credentials.create) (yourself)",
        params: UidParams,
        body: Type.Optional(Type.Object({}, { additionalProperties: false })),
        response: { 200: WebAuthnJson },
      },
    },
    (request) => mfa.passkeyOptions(actorOf(request), Number(request.params.uid), contextOf(request)),
  );
  app.post(
    '/v1/users/:uid/mfa/webauthn',
    {
      config: config(['invalid_mfa_response', 'too_many_mfa_factors']),
      schema: {
        ...doc,
        summary:
          "Register a passkey or security key: the authenticator's answer to the options' challenge (user verification required) (yourself)",
        params: UidParams,
        body: Type.Object({ name: Name, response: WebAuthnJson }, { additionalProperties: false }),
        response: { 200: Enrolled },
      },
    },
    (request) => mfa.addPasskey(actorOf(request), Number(request.params.uid), request.body, contextOf(request)),
  );
  app.post(
    '/v1/users/:uid/mfa/recovery_codes',
    {
      config: config(),
      schema: {
        ...doc,
        summary: 'Ten new recovery codes, the old ones void: shown once (yourself, with a recent second factor)',
        params: UidParams,
        body: Type.Optional(Type.Object({}, { additionalProperties: false })),
        response: { 200: Type.Object({ recovery_codes: RecoveryCodes }) },
      },
    },
    async (request) => ({
      recovery_codes: await mfa.newRecoveryCodes(actorOf(request), Number(request.params.uid), contextOf(request)),
    }),
  );
  app.delete(
    '/v1/users/:uid/mfa/:factor_id',
    {
      config: config(['mfa_factor_not_found']),
      schema: {
        ...doc,
        summary:
          'Remove a second factor: yourself with one proven in the last 15 minutes, or who may manage the user (a reset; update_user)',
        params: FactorParams,
        response: { 200: Ok },
      },
    },
    async (request) => {
      await mfa.remove(actorOf(request), Number(request.params.uid), request.params.factor_id, contextOf(request));
      return {};
    },
  );
  app.delete(
    '/v1/users/:uid/mfa',
    {
      config: config(),
      schema: {
        ...doc,
        summary:
          'Remove every second factor and recovery code of a user (a reset of a lost phone: who may manage the user; yourself with a recent second factor)',
        params: UidParams,
        response: { 200: Ok },
      },
    },
    async (request) => {
      await mfa.removeAll(actorOf(request), Number(request.params.uid), contextOf(request));
      return {};
    },
  );
}
