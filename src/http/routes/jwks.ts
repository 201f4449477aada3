import type { TesseraApp } from '../../app.js';

/** GET /.well-known/jwks.json: the public keys that verify Tessera tokens (RFC 7517). */
export function jwksRoute(app: TesseraApp): void {
  const { keys } = app.tessera;
  app.get('/.well-known/jwks.json', async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return keys.jwks();
  });
}
