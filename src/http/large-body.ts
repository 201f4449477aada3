import type { FastifyInstance } from 'fastify';
import { DomainError } from '../errors.js';

/** Bodies up to this size are read to their end before the 413 (a larger one is not worth the bandwidth). */
const DRAIN_MAX_BYTES = 16 * 1024 * 1024;
/** And for this long at most. */
const DRAIN_MS = 10_000;

/**
 * A body its route would not take (its Content-Length past the route's limit) is answered 413
 * in the one error shape — after it has been read, not while the client is still sending it:
 * a connection closed with unread bytes is reset, and the client sees that instead of the 413.
 */
export function answerLargeBodies(app: FastifyInstance, defaultLimit: number): void {
  app.addHook('onRequest', (request, reply, done) => {
    const length = request.headers['content-length'];
    // Routes only ever raise the limit; their own is read (request.routeOptions makes an object) only past the default.
    if (length === undefined || Number(length) <= defaultLimit) return done();
    if (Number(length) <= (request.routeOptions.bodyLimit ?? defaultLimit)) return done();
    let answered = false;
    const answer = () => {
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      void reply.header('connection', 'close').send(new DomainError('body_too_large', 'The request body is too large'));
    };
    const timer = setTimeout(answer, DRAIN_MS);
    if (Number(length) > DRAIN_MAX_BYTES) return answer();
    request.raw.on('end', answer).on('error', answer).resume();
  });
}
