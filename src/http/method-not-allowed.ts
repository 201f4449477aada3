import type { FastifyInstance } from 'fastify';
import { MethodNotAllowedError } from '../errors.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

/**
 * A known path asked with a method it does not take answers 405 `method_not_allowed` with
 * `Allow`, not 404 — and not a validation error of a parametric route that happens to match
 * (`GET /v1/users/authorize` would otherwise be `GET /v1/users/:uid`). Call before the
 * routes are added; the returned function adds the 405 routes once they all are.
 */
export function collectMethods(app: FastifyInstance): () => void {
  const byUrl = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = byUrl.get(route.url) ?? new Set<string>();
    for (const m of [route.method].flat()) methods.add(m);
    byUrl.set(route.url, methods);
  });
  return () => {
    for (const [url, methods] of [...byUrl]) {
      const others = METHODS.filter((m) => !methods.has(m));
      if (others.length === 0) continue;
      const allow = METHODS.filter((m) => methods.has(m)).join(', ');
      app.route({
        method: others,
        url,
        exposeHeadRoute: false,
        schema: { hide: true }, // the document lists what a path takes, not what it refuses
        config: { access: 'public' }, // answered 405 before anything else
        handler: async (_request, reply) => {
          reply.header('allow', allow);
          throw new MethodNotAllowedError(allow);
        },
      });
    }
  };
}
