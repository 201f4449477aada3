import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { statusOf } from './error-response.js';

/**
 * Answers to requests refused before any route runs — by Node's HTTP parser, by the router,
 * or for a missing Host — in the one error shape. They never echo what the client sent, and
 * never log it: a raw packet holds credentials and bodies.
 */
export function rawAnswer(code: string, message: string): string {
  const status = statusOf(code);
  const body = JSON.stringify({ error_code: code, message });
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** Fastify's `clientErrorHandler`: what Node's parser could not read as HTTP. */
export function answerClientError(this: FastifyInstance, err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [code, message] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? ['request_timeout', 'The request did not arrive in time']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? ['headers_too_large', 'The request headers are too large']
        : ['malformed_request', 'The request is not valid HTTP/1.1'];
  this.log.debug({ code: err.code }, 'client error'); // the code alone: err.rawPacket holds the request's bytes
  if (!socket.writable) return void socket.destroy();
  socket.end(rawAnswer(code, message));
  // Closing with bytes of the request still unread resets the connection, and the answer
  // with it (headers too large arrive in many packets; over TLS nearly always): read and drop
  // the rest for a moment, as nginx's lingering close does, then let go.
  socket.on('data', () => {}).resume();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

/** How long the rest of a refused request is read and dropped before the connection is closed. */
const LINGER_MS = 2000;

/** Fastify's `frameworkErrors`: a URL the router cannot decode, or a parameter too long. */
export function answerFrameworkError(
  err: Error & { code?: string },
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const message = err.code === 'FST_ERR_BAD_URL' ? 'The URL is not valid' : 'The request could not be understood';
  void reply.code(400).header('connection', 'close').send({ error_code: 'invalid_url', message });
}

/**
 * Server options and hooks for the rest: a request without a Host header (HTTP/1.1 needs
 * one; Node would answer an empty 400) and an Expect header (Node would answer an empty 417).
 */
export const SERVER_OPTIONS = { requireHostHeader: false };

export function answerMissingHostAndExpect(app: FastifyInstance): void {
  app.server.on('checkExpectation', (_req, res) => {
    const body = JSON.stringify({
      error_code: 'expectation_failed',
      message: 'This Expect header is not supported (100-continue is)',
    });
    res
      .writeHead(statusOf('expectation_failed'), {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
        connection: 'close',
      })
      .end(body);
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (request.headers.host !== undefined || request.raw.httpVersion !== '1.1') return done();
    void reply
      .code(400)
      .header('connection', 'close')
      .send({ error_code: 'malformed_request', message: 'An HTTP/1.1 request needs a Host header' });
  });
}
