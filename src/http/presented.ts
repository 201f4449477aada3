import type { FastifyRequest } from 'fastify';
import { type Presented, parseAuthorization } from '../auth/credentials.js';
import type { Config } from '../config/config.js';
import { certificateSource } from './client-certificate.js';

/**
 * What a request presents — the one reading that the access hook and the login route share:
 * its Authorization header (a token, an API key, or Basic credentials), else, when `certificate` asks
 * for it, its client certificate (explicit credentials win over one).
 */
export function presentedReader(
  config: Config,
): (request: FastifyRequest, certificate: boolean) => Presented | undefined {
  const certificateOf = certificateSource(config);
  return (request, certificate) => {
    const authorization = request.headers.authorization;
    if (authorization !== undefined) {
      const presented = parseAuthorization(authorization);
      // A key is taken only from the addresses it names: the client's, as the trusted-proxy setting reads it.
      if (presented.kind !== 'api_key') return presented;
      presented.ip = request.ip;
      return presented;
    }
    const read = certificate ? certificateOf(request) : undefined;
    return read && { kind: 'certificate', certificate: read };
  };
}
