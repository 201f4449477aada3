import type { FastifyInstance } from 'fastify';

/** A year: browsers that once reached Tessera over TLS never try it in plain text (OWASP HTTP headers cheat sheet). */
const HSTS = 'max-age=31536000';

/**
 * Headers every answer carries: no cache keeps what an answer holds (users, tokens, settings)
 * unless its route says otherwise (the public keys, the console's files), and over TLS,
 * Strict-Transport-Security.
 */
export function securityHeaders(app: FastifyInstance, tls: boolean): void {
  app.addHook(
    'onRequest',
    tls
      ? (_request, reply, done) => {
          reply.header('cache-control', 'no-store').header('strict-transport-security', HSTS);
          done();
        }
      : (_request, reply, done) => {
          reply.header('cache-control', 'no-store');
          done();
        },
  );
}
