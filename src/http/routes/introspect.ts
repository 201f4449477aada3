import Type from 'typebox';
import { InvalidTokenError } from '../../errors.js';
import { CALLER } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

const Introspection = Type.Object({
  active: Type.Boolean(),
  iss: Type.Optional(Type.String()),
  aud: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
  sub: Type.Optional(Type.String()),
  uid: Type.Optional(Type.Integer()),
  username: Type.Optional(Type.String()),
  roles: Type.Optional(Type.Array(Type.String())),
  resources: Type.Optional(
    Type.Array(Type.Object({ management: Type.String(), type: Type.String(), uids: Type.Array(Type.String()) }), {
      description: 'the levels of roles limited to some resources (absent: none is)',
    }),
  ),
  iat: Type.Optional(Type.Integer()),
  exp: Type.Optional(Type.Integer()),
  jti: Type.Optional(Type.String()),
  ver: Type.Optional(Type.Integer()),
  token_type: Type.Optional(Type.Literal('Bearer')),
});

/**
 * POST /v1/introspect (RFC 7662): is this token good now — signature, expiry and
 * revocation — for services that would rather ask per token than verify themselves.
 * `token` as a form field (as OAuth clients send it) or in a JSON body; the caller
 * authenticates as a token_verifier (or an admin). An unusable token is `{"active": false}`.
 */
export function introspectRoute(app: TesseraApp, { callers }: Pick<HttpServices, 'callers'>): void {
  const schema = {
    tags: ['verification'],
    summary: 'Is this token good now? (RFC 7662; token_verifier or admin)',
    security: CALLER,
    consumes: ['application/x-www-form-urlencoded', 'application/json'],
    body: Type.Object({
      token: Type.String({ minLength: 1, maxLength: 8192 }),
      token_type_hint: Type.Optional(Type.String()),
    }),
    response: { 200: Introspection },
  };
  app.post(
    '/v1/introspect',
    { schema, config: { formBody: true, access: 'verify_tokens', signIn: true } },
    async (request) => {
      try {
        const { token: claims } = await callers.checkToken(request.body.token);
        // A token for enrolling a second factor only is good for nothing at another service.
        if (claims?.mfa_enrol) return { active: false };
        const { iss, aud, sub, uid, username, roles, resources, iat, exp, jti, ver } = claims!;
        return {
          active: true,
          iss,
          aud,
          sub,
          uid,
          username,
          roles,
          ...(resources && { resources }),
          iat,
          exp,
          jti,
          ver,
          token_type: 'Bearer' as const,
        };
      } catch (err) {
        if (err instanceof InvalidTokenError) return { active: false };
        throw err;
      }
    },
  );
}
