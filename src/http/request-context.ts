import type { FastifyRequest } from 'fastify';
import type { RequestContext } from '../audit/audit-log.js';

export function contextOf(request: FastifyRequest): RequestContext {
  const agent = request.headers['user-agent'];
  return { ip: request.ip, requestId: request.id, ...(agent && { userAgent: agent.slice(0, 256) }) };
}
