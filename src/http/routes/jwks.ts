import type { TesseraApp } from '../tessera-app.js';
import { cacheable } from '../cacheable.js';

/** Verifiers may cache the key set this long; a rotated key is published longer before it signs. */
export const JWKS_MAX_AGE_SECONDS = 300;

/** GET /.well-known/jwks.json: the public keys that verify Tessera tokens (RFC 7517). */
export function jwksRoute(app: TesseraApp): void {
  const { keys } = app.tessera;
  app.get('/.well-known/jwks.json', async (request, reply) => cacheable(request, reply, keys.jwks(), JWKS_MAX_AGE_SECONDS));
}
