import type { FastifyRequest } from 'fastify';
import type { RequestContext } from '../audit/audit-log.js';

export function contextOf(request: FastifyRequest): RequestContext {
  return { ip: request.ip, requestId: request.id };
}
