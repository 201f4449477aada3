import Type from 'typebox';
import { InvalidRequestError } from '../../errors.js';
import { contextOf } from '../request-context.js';
import { AccessToken, ANYONE } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

const SecondStepBody = Type.Object(
  {
    mfa_token: Type.String({
      minLength: 1,
      maxLength: 128,
      description: 'what the first step (POST /v1/users/authorize) answered with mfa_required',
    }),
    code: Type.Optional(
      Type.String({ minLength: 1, maxLength: 16, description: 'the six digits of the authenticator app' }),
    ),
    recovery_code: Type.Optional(
      Type.String({ minLength: 1, maxLength: 32, description: 'one of the recovery codes' }),
    ),
    webauthn: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description: "a passkey's answer (navigator.credentials.get) to the first step's options",
        },
      ),
    ),
  },
  { additionalProperties: false },
);

/** POST /v1/users/authorize/mfa: the second step of a login of a user with a second factor. */
export function authorizeMfaRoute(app: TesseraApp, { logins }: Pick<HttpServices, 'logins'>): void {
  app.post(
    '/v1/users/authorize/mfa',
    {
      config: {
        access: 'public',
        signIn: true,
        errors: ['invalid_mfa_code', 'invalid_mfa_token', 'account_locked', 'try_again', 'store_unavailable'],
      },
      schema: {
        tags: ['tokens'],
        security: ANYONE,
        summary: 'Log in, second step: the mfa_token and a code (or a recovery code, or a passkey) for the token',
        description:
          'After POST /v1/users/authorize answered 401 mfa_required with an mfa_token (single use, for the same client, 5 minutes): ' +
          'one of "code" (the authenticator app, RFC 6238: 30 s, one step either side), "recovery_code" or "webauthn". ' +
          'Each code is accepted once on every node; a wrong one counts toward the lockout like a wrong password, ' +
          'and the mfa_token takes 5 wrong answers. The token is what the first step would have given, with mfa_at.',
        body: SecondStepBody,
        response: { 200: AccessToken },
      },
    },
    async (request) => {
      const answers = ['code', 'recovery_code', 'webauthn'].filter(
        (k) => request.body[k as keyof typeof request.body] !== undefined,
      );
      if (answers.length !== 1)
        throw new InvalidRequestError('Send the mfa_token with one of "code", "recovery_code" or "webauthn"');
      return { access_token: await logins.completeSecondStep(request.body, contextOf(request)) };
    },
  );
}
