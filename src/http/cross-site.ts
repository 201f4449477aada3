import type { FastifyRequest } from 'fastify';
import type { Presented } from '../auth/credentials.js';
import { CrossSiteRequestError } from '../errors.js';

/** Methods that change nothing: a browser's cross-site request of these can read nothing either (no CORS here). */
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses a state-changing request that carries ambient credentials — Basic (which a browser
 * caches for the origin and sends by itself) or a client certificate (which it presents by
 * itself) — when a browser says it comes from a page of another site: `Sec-Fetch-Site`
 * cross-site or same-site, or an `Origin` that is neither the public URL's nor the request's
 * own. OWASP's CSRF cheat sheet: Fetch Metadata, then Origin. Requests without those headers
 * (curl, SDKs, automation) and tokens (which a page must set itself) are not concerned.
 */
export function crossSiteGuard(publicUrl: string): (request: FastifyRequest, presented: Presented | undefined) => void {
  const own = new URL(publicUrl).origin;
  return (request, presented) => {
    // A token, or a key as Bearer, is never sent by a browser on its own: only ambient credentials are checked.
    if (!presented || presented.kind === 'token' || (presented.kind === 'api_key' && !presented.basic)) return;
    if (SAFE.has(request.method)) return;
    const site = request.headers['sec-fetch-site'];
    const origin = request.headers.origin;
    const foreignSite = site === 'cross-site' || site === 'same-site';
    const foreignOrigin = origin !== undefined && origin !== own && origin !== `${request.protocol}://${request.host}`;
    if (foreignSite || foreignOrigin) throw new CrossSiteRequestError();
  };
}

/** A request that says it is a browser's (Fetch Metadata, or a page's Accept): it is not asked for Basic credentials. */
export function fromBrowser(request: FastifyRequest): boolean {
  return (
    request.headers['sec-fetch-mode'] !== undefined ||
    request.headers['x-requested-with'] !== undefined ||
    (request.headers.accept ?? '').includes('text/html')
  );
}
