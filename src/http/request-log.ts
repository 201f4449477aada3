import type { FastifyInstance } from 'fastify';
import { clientAddress } from './request-context.js';

/**
 * One access line a request, when it is answered: at info for writes and failures, at
 * debug for successful reads (the hot path of token checks). It names no header, no body
 * and no query string, so no credential can reach it; security events have their own
 * audit lines.
 */
export function logRequests(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    const quiet = (request.method === 'GET' || request.method === 'HEAD') && reply.statusCode < 400;
    if (quiet && app.log.level !== 'debug' && app.log.level !== 'trace') return done();
    const line = {
      method: request.method,
      url: request.url.split('?', 1)[0], // a query string may carry what must not be logged
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      ip: clientAddress(request),
    };
    if (quiet) request.log.debug(line, 'request');
    else request.log.info(line, 'request');
    done();
  });
}
