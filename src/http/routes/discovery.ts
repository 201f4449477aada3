import Type from 'typebox';
import { issuerOf, publicUrlOf } from '../../config/config.js';
import { SIGNING_ALGS } from '../../tokens/signing-alg.js';
import { cacheable, NOT_MODIFIED } from '../cacheable.js';
import { ANYONE } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';
import { JWKS_MAX_AGE_SECONDS } from './jwks.js';

/**
 * GET /.well-known/openid-configuration (OpenID Connect Discovery) and
 * /.well-known/oauth-authorization-server (RFC 8414): where the keys are and what the
 * tokens are, so that a verifier set up with the issuer alone finds the rest. Only what
 * is true of Tessera: no authorization endpoint, no ID tokens, no OAuth grants — so no
 * `token_endpoint` either (an OAuth client would send it a form-encoded grant it does not
 * take); Tessera's own login is named in a field of its own.
 */
export function discoveryRoutes(app: TesseraApp, { config, keys }: Pick<HttpServices, 'config' | 'keys'>): void {
  const base = publicUrlOf(config);
  const document = () => ({
    issuer: issuerOf(config),
    jwks_uri: `${base}/.well-known/jwks.json`,
    // Tessera's own login (7.22 Basic header or 7.4 JSON body), not an RFC 6749 grant.
    tessera_login_endpoint: `${base}/v1/users/authorize`,
    introspection_endpoint: `${base}/v1/introspect`,
    id_token_signing_alg_values_supported: keys.algorithms(),
    subject_types_supported: ['public'],
    claims_supported: ['iss', 'aud', 'sub', 'uid', 'username', 'roles', 'iat', 'exp', 'jti', 'ver'],
  });
  const Discovery = Type.Object({
    issuer: Type.String(),
    jwks_uri: Type.String(),
    tessera_login_endpoint: Type.String({
      description: "POST /v1/users/authorize: Tessera's login, not an OAuth 2.0 token endpoint",
    }),
    introspection_endpoint: Type.String(),
    id_token_signing_alg_values_supported: Type.Array(Type.Enum(SIGNING_ALGS)),
    subject_types_supported: Type.Array(Type.String()),
    claims_supported: Type.Array(Type.String()),
  });
  const schema = (summary: string) => ({
    tags: ['verification'],
    summary,
    security: ANYONE,
    response: { 200: Discovery, 304: NOT_MODIFIED },
  });
  app.get(
    '/.well-known/openid-configuration',
    { schema: schema('Discovery (OpenID Connect): the issuer, its keys and its tokens') },
    (request, reply) => cacheable(request, reply, document(), JWKS_MAX_AGE_SECONDS),
  );
  app.get(
    '/.well-known/oauth-authorization-server',
    { schema: schema('The same document as RFC 8414 metadata') },
    (request, reply) => cacheable(request, reply, document(), JWKS_MAX_AGE_SECONDS),
  );
}
