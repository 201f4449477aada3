import type { FastifyRequest } from 'fastify';
import { type Presented, parseAuthorization } from '../auth/credentials.js';
import type { Config } from '../config/config.js';
import { certificateSource } from './client-certificate.js';

/**
 * What a request presents — the one reading that the access hook and the login route share:
 * its Authorization header (a token, or Basic credentials), else, when `certificate` asks
 * for it, its client certificate (explicit credentials win over one).
 */
export function presentedReader(
  config: Config,
): (request: FastifyRequest, certificate: boolean) => Presented | undefined {
  const certificateOf = certificateSource(config);
  return (request, certificate) => {
    const authorization = request.headers.authorization;
    if (authorization !== undefined) return parseAuthorization(authorization);
    const read = certificate ? certificateOf(request) : undefined;
    return read && { kind: 'certificate', certificate: read };
  };
}
