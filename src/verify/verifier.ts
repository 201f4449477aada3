import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from 'jose';
import { isResourceScopes, type ResourceScope } from './resources.js';
import { type FeedCredentials, RevocationFeed } from './revocation-feed.js';

/** The claims of a Tessera token, checked for their types. */
export interface TesseraClaims extends JWTPayload {
  iss: string;
  sub: string;
  aud: string | string[];
  uid: number;
  username: string;
  roles: string[];
  /**
   * The levels of `roles` that the user's roles limit to some resources (`[{management:
   * "db_viewer", type: "db", uids: ["1", "2"]}]`); a level no entry names applies to every
   * resource. Absent when none is limited. Ask `rolesOn(claims, {type: 'db', uid})`.
   */
  resources?: ResourceScope[];
  iat: number;
  exp: number;
  jti: string;
  /** The user's token epoch when the token was issued (see the revocation feed). */
  ver: number;
  /** The session it belongs to (the revocation feed ends sessions); absent on tokens of older servers. */
  sid?: string;
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
  /**
   * Follow the revocation feed with these credentials (a user with the token_verifier
   * role): a logged-out, re-passworded, demoted or deleted user's tokens are refused here
   * too, within about `pollMs`, without a request to Tessera per token.
   */
  revocations?: FeedCredentials;
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
  /** Stops following the revocation feed. */
  close(): void;
}

interface Discovered {
  jwksUri: string;
  tokenEndpoint?: string;
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
  let setup: Promise<{ keys: ReturnType<typeof createRemoteJWKSet>; feed?: RevocationFeed }> | undefined;
  const ready = () =>
    (setup ??= discover(issuer).then(
      ({ jwksUri, tokenEndpoint }) => {
        const keys = createRemoteJWKSet(new URL(jwksUri), { cooldownDuration: options.refetchCooldownMs ?? 30_000 });
        if (!options.revocations) return { keys };
        const login = tokenEndpoint ?? `${issuer}/v1/users/authorize`;
        return {
          keys,
          feed: new RevocationFeed(login, new URL('/v1/revocations', login).toString(), options.revocations),
        };
      },
      (err: unknown) => {
        setup = undefined; // try discovery again with the next token
        throw err;
      },
    ));
  return {
    close: () =>
      void setup?.then(
        ({ feed }) => feed?.close(),
        () => {},
      ),
    async verify(token: string): Promise<TesseraClaims> {
      const { keys, feed } = await ready();
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, keys, {
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
      // A token for enrolling a second factor only proves nothing to a service (its roles are empty all the same).
      if ((payload as { mfa_enrol?: unknown }).mfa_enrol !== undefined)
        throw new TokenRejectedError('mfa_enrolment_only');
      const claims = claimsOf(payload);
      if (feed) {
        await feed.ready();
        if (feed.isRevoked(claims)) throw new TokenRejectedError('revoked');
      }
      return claims;
    },
  };
}

async function discover(issuer: string): Promise<Discovered> {
  const res = await fetch(`${issuer}/.well-known/openid-configuration`, { headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`discovery at ${issuer} answered ${res.status}`);
  const doc = (await res.json()) as { issuer?: string; jwks_uri?: string; tessera_login_endpoint?: string };
  if (doc.issuer?.replace(/\/+$/, '') !== issuer || !doc.jwks_uri) {
    throw new Error(`the discovery document at ${issuer} is for issuer ${String(doc.issuer)}`);
  }
  return { jwksUri: doc.jwks_uri, tokenEndpoint: doc.tessera_login_endpoint };
}

function claimsOf(p: JWTPayload): TesseraClaims {
  const { uid, username, roles, ver, resources } = p as Record<string, unknown>;
  if (
    !Number.isSafeInteger(uid) ||
    !Number.isSafeInteger(ver) ||
    typeof username !== 'string' ||
    !Array.isArray(roles) ||
    !roles.every((r) => typeof r === 'string') ||
    // A limit this kit cannot read must not become no limit.
    (resources !== undefined && !isResourceScopes(resources))
  ) {
    throw new TokenRejectedError('the token does not carry Tessera claims');
  }
  return p as TesseraClaims;
}
