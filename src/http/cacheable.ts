import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The response schema of a 304: no body. */
export const NOT_MODIFIED = {
  type: 'null',
  description: 'Not modified: the document named by If-None-Match is current',
} as const;

/**
 * A public document that verifiers cache: `Cache-Control` for `maxAgeSeconds`, a strong
 * `ETag` of its content, and 304 without a body when `If-None-Match` names it.
 */
export function cacheable(request: FastifyRequest, reply: FastifyReply, body: object, maxAgeSeconds: number): void {
  const json = JSON.stringify(body);
  const etag = `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`;
  reply.header('cache-control', `public, max-age=${maxAgeSeconds}`).header('etag', etag);
  const asked = request.headers['if-none-match'];
  if (asked?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*')) {
    reply.code(304).send();
    return;
  }
  reply.type('application/json; charset=utf-8').send(json);
}
