import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BEARER_CHALLENGE, FORBIDDEN, hasRole, tokenOf, UNAUTHORIZED, UNAVAILABLE } from './roles.js';
import { type TesseraClaims, TokenRejectedError, type Verifier } from './verifier.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified claims of the request's Tessera token (set by tesseraFastify). */
    tessera?: TesseraClaims;
  }
}

/**
 * A Fastify plugin: every request of the scope it is registered in must carry a valid
 * Tessera token (401 `invalid_token` otherwise, in Tessera's error shape); its claims are
 * `request.tessera`. Registered without encapsulation, so the hook covers its parent scope.
 */
export function tesseraFastify(verifier: Verifier) {
  const plugin = async (app: FastifyInstance) => {
    app.decorateRequest('tessera', undefined);
    app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      const token = tokenOf(request.headers.authorization);
      if (!token) return reply.code(401).header('www-authenticate', BEARER_CHALLENGE).send(UNAUTHORIZED);
      try {
        request.tessera = await verifier.verify(token);
      } catch (err) {
        if (!(err instanceof TokenRejectedError)) return reply.code(503).header('retry-after', '5').send(UNAVAILABLE);
        return reply.code(401).header('www-authenticate', BEARER_CHALLENGE).send(UNAUTHORIZED);
      }
    });
  };
  (plugin as unknown as Record<symbol, boolean>)[Symbol.for('skip-override')] = true;
  return plugin;
}

/** A route's preHandler: 403 `forbidden` unless the token holds one of `roles`. */
export function requireRole(...roles: string[]) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.tessera) return reply.code(401).header('www-authenticate', BEARER_CHALLENGE).send(UNAUTHORIZED);
    if (!hasRole(request.tessera, roles)) return reply.code(403).send(FORBIDDEN);
  };
}
