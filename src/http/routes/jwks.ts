import Type from 'typebox';
import { SIGNING_ALGS } from '../../tokens/signing-alg.js';
import { cacheable, NOT_MODIFIED } from '../cacheable.js';
import { ANYONE } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

/** Verifiers may cache the key set this long; a rotated key is published longer before it signs. */
export const JWKS_MAX_AGE_SECONDS = 300;

/** GET /.well-known/jwks.json: the public keys that verify Tessera tokens (RFC 7517). */
export function jwksRoute(app: TesseraApp, { keys }: Pick<HttpServices, 'keys'>): void {
  const Jwk = Type.Object(
    {
      kty: Type.Enum(['EC', 'RSA', 'OKP']),
      kid: Type.String(),
      alg: Type.Enum(SIGNING_ALGS),
      use: Type.Literal('sig'),
      crv: Type.Optional(Type.String()),
      x: Type.Optional(Type.String()),
      y: Type.Optional(Type.String()),
      n: Type.Optional(Type.String()),
      e: Type.Optional(Type.String()),
    },
    { additionalProperties: false },
  );
  const schema = {
    tags: ['verification'],
    summary: 'The public keys that verify Tessera tokens (RFC 7517); cacheable, with ETag',
    security: ANYONE,
    response: { 200: Type.Object({ keys: Type.Array(Jwk) }), 304: NOT_MODIFIED },
  };
  app.get('/.well-known/jwks.json', { schema }, (request, reply) =>
    cacheable(request, reply, keys.jwks(), JWKS_MAX_AGE_SECONDS),
  );
}
