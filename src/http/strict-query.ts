import type { FastifyInstance } from 'fastify';
import Type from 'typebox';

const NONE = Type.Object({}, { additionalProperties: false });

/**
 * A query parameter a request does not take is refused (400 naming it), never ignored: a
 * client that sends `?dry_run` where there is none must not have its change applied. Routes
 * that take parameters declare them; every other documented route takes none (static files
 * and the hidden pages are left as they are). Registered before the routes' error documents,
 * which then list the refusal.
 */
export function refuseUnknownQueries(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (route.schema && !route.schema.hide && route.schema.querystring === undefined)
      route.schema = { ...route.schema, querystring: NONE };
  });
}
