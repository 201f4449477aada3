import { LRUCache } from 'lru-cache';
import { type ServiceCredentials, ServiceLogin } from './service-login.js';
import { type TesseraClaims, TokenRejectedError, type Verifier } from './verifier.js';

export interface IntrospectorOptions {
  /** Tessera's public URL. */
  issuer: string;
  /** A user with the token_verifier role. */
  credentials: ServiceCredentials;
  /** How long an answer is reused, in seconds (default 5): a revocation shows after at most this. */
  cacheSeconds?: number;
}

/**
 * A Verifier that asks Tessera about each token (RFC 7662, POST /v1/introspect) instead of
 * checking it here: signature, expiry and revocation in one call, the answer cached for a
 * few seconds (never past the token's exp). Fits the Fastify and Express guards as is.
 */
export function createIntrospector(options: IntrospectorOptions): Verifier {
  const base = options.issuer.replace(/\/+$/, '');
  const login = new ServiceLogin(`${base}/v1/users/authorize`, options.credentials);
  const ttlMs = (options.cacheSeconds ?? 5) * 1000;
  const answers = new LRUCache<string, { claims?: TesseraClaims }>({ max: 10_000, ttl: ttlMs });
  const ask = async (token: string, retry = true): Promise<{ claims?: TesseraClaims }> => {
    const res = await fetch(`${base}/v1/introspect`, {
      method: 'POST',
      headers: { authorization: await login.authorization(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }).toString(),
    });
    if (res.status === 401 && retry) {
      login.forget();
      return ask(token, false);
    }
    if (!res.ok) throw new Error(`introspection answered ${res.status}`);
    const body = (await res.json()) as { active: boolean } & Partial<TesseraClaims>;
    return body.active ? { claims: body as TesseraClaims } : {};
  };
  return {
    async verify(token: string): Promise<TesseraClaims> {
      let answer = answers.get(token);
      if (!answer) {
        answer = await ask(token);
        const left = answer.claims ? answer.claims.exp * 1000 - Date.now() : ttlMs;
        if (left > 0) answers.set(token, answer, { ttl: Math.min(ttlMs, left) });
      }
      if (!answer.claims || answer.claims.exp * 1000 <= Date.now()) throw new TokenRejectedError('inactive');
      return answer.claims;
    },
    close: () => answers.clear(),
  };
}
