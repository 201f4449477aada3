import { isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';
import type { RequestContext } from '../audit/audit-log.js';

export function contextOf(request: FastifyRequest): RequestContext {
  const agent = request.headers['user-agent'];
  return { ip: clientAddress(request), requestId: request.id, ...(agent && { userAgent: agent.slice(0, 256) }) };
}

/**
 * The client's address: the socket's, or the one a trusted proxy forwarded (--trusted-proxy) when
 * that is an address at all (else the proxy's own); an IPv4 address mapped into IPv6 is written as
 * IPv4, so that one client is one throttle bucket and one line in the logs however it is spelt.
 */
export function clientAddress(request: FastifyRequest): string {
  const forwarded = request.ip;
  const ip = isIP(forwarded) ? forwarded : (request.socket.remoteAddress ?? '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return mapped ? mapped[1]! : ip;
}
