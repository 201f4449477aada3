import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from 'jose';

/** The claims of a Tessera token, checked for their types. */
export interface TesseraClaims extends JWTPayload {
  iss: string;
  sub: string;
  aud: string | string[];
  uid: number;
  username: string;
  roles: string[];
  iat: number;
  exp: number;
  jti: string;
}

export interface VerifierOptions {
  /** Tessera's public URL: the tokens' `iss`, where discovery starts. */
  issuer: string;
  /** The audience this service expects; Tessera's public URL unless it runs with --audience. */
  audience: string | string[];
  /** Accepted algorithms; every one Tessera signs with by default. */
  algorithms?: string[];
  /** Tolerated clock skew on exp/nbf/iat, in seconds (at most a few). */
  leewaySeconds?: number;
  /** Least time between two JWKS fetches for an unknown kid, in milliseconds. */
  refetchCooldownMs?: number;
}

/** A token this service must refuse; `reason` is for logs, never for the client. */
export class TokenRejectedError extends Error {
  readonly code = 'invalid_token';
  constructor(readonly reason: string) {
    super('The token is not valid');
  }
}

export interface Verifier {
  verify(token: string): Promise<TesseraClaims>;
}

/**
 * Verifies Tessera tokens in another service: finds the JWKS through the issuer's discovery
 * document, caches it (jose refetches on an unknown kid, at most once a cooldown), accepts
 * a key only for the algorithm it is published with, and checks iss, aud, exp and nbf with
 * a small leeway. Nothing is fetched until the first token.
 */
export function createVerifier(options: VerifierOptions): Verifier {
  const issuer = options.issuer.replace(/\/+$/, '');
  const algorithms = options.algorithms ?? ['ES256', 'RS256', 'EdDSA'];
  let keys: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;
  const keySet = () =>
    (keys ??= discoverJwksUri(issuer).then(
      (uri) => createRemoteJWKSet(new URL(uri), { cooldownDuration: options.refetchCooldownMs ?? 30_000 }),
      (err: unknown) => {
        keys = undefined; // try discovery again with the next token
        throw err;
      },
    ));
  return {
    async verify(token: string): Promise<TesseraClaims> {
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, await keySet(), {
          issuer,
          audience: options.audience,
          algorithms,
          clockTolerance: options.leewaySeconds ?? 5,
          requiredClaims: ['iss', 'aud', 'sub', 'exp', 'iat', 'jti'],
          typ: 'JWT',
        }));
      } catch (err) {
        if (err instanceof errors.JOSEError) throw new TokenRejectedError(err.code);
        throw err; // Tessera unreachable: not the token's fault
      }
      return claimsOf(payload);
    },
  };
}

async function discoverJwksUri(issuer: string): Promise<string> {
  const res = await fetch(`${issuer}/.well-known/openid-configuration`, { headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`discovery at ${issuer} answered ${res.status}`);
  const doc = (await res.json()) as { issuer?: string; jwks_uri?: string };
  if (doc.issuer?.replace(/\/+$/, '') !== issuer || !doc.jwks_uri) {
    throw new Error(`the discovery document at ${issuer} is for issuer ${String(doc.issuer)}`);
  }
  return doc.jwks_uri;
}

function claimsOf(p: JWTPayload): TesseraClaims {
  const { uid, username, roles } = p as Record<string, unknown>;
  if (!Number.isSafeInteger(uid) || typeof username !== 'string' || !Array.isArray(roles) || !roles.every((r) => typeof r === 'string')) {
    throw new TokenRejectedError('the token does not carry Tessera claims');
  }
  return p as TesseraClaims;
}
