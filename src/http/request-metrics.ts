import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics/metrics.js';

/**
 * Counts and times every answer by the route's pattern (/v1/users/:uid), never the URL: a
 * label of bounded cardinality; what no route takes is `unmatched`.
 */
export function countRequests(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.is404 ? 'unmatched' : request.routeOptions.url!;
    metrics.httpRequest(route, request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
