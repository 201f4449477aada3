import type { FastifyInstance } from 'fastify';
import Type from 'typebox';

const NONE = Type.Object({}, { additionalProperties: false });

/**
 * A query parameter a request does not take is refused (400 naming it), never ignored: a
 * client that sends `?dry_run` where there is none must not have its change applied. Routes
 * that take parameters declare them and take no other; every other documented route takes
 * none (static files and the hidden pages are left as they are). Registered before the routes' error documents,
 * which then list the refusal.
 */
export function refuseUnknownQueries(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!route.schema || route.schema.hide) return;
    const query = route.schema.querystring as { type?: string; additionalProperties?: unknown } | undefined;
    if (query === undefined) route.schema = { ...route.schema, querystring: NONE };
    // A route that names its parameters takes those alone, also where its schema forgot to say so.
    else if (query.type === 'object' && query.additionalProperties === undefined)
      route.schema = { ...route.schema, querystring: { ...query, additionalProperties: false } };
  });
}
