import { createVerifier } from 'fast-jwt';
import { LRUCache } from 'lru-cache';
import { isRole } from '../access/management.js';
import { isLevelScopes } from '../access/resource-scopes.js';
import type { Clock } from '../clock.js';
import { InvalidTokenError, TokenExpiredError } from '../errors.js';
import type { TokenOrigins } from './accepted-issuers.js';
import type { TokenClaims } from './claims.js';
import type { KeyRing } from './key-ring.js';
import { SIGNING_ALGS } from './signing-alg.js';

/** fast-jwt's code for an `iss` or `aud` (among others) not allowed, checked after the signature. */
const CLAIM_VALUE_INVALID = 'FAST_JWT_INVALID_CLAIM_VALUE';

/** Verified tokens kept, about 1 KiB each. */
const VERIFIED_CACHE_SIZE = 10_000;

interface Decoded {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
}

/**
 * Verifies Tessera tokens (RFC 8725): only keys of our key ring chosen by `kid`, each with
 * the one algorithm it was made for (never the header's word: a token whose `alg` is not
 * its key's is refused), an issuer and an audience of ours (the node's own, and those of a
 * move of the store's issuer while it lasts), and exp/iat within the leeway.
 * Signatures are checked with node:crypto (fast-jwt) on the calling thread.
 */
export class TokenVerifier {
  /**
   * Keyed by the signature, the token's last part (hashing the whole token, ~500
   * characters, was the largest single cost of a cached check); an entry holds the whole
   * token, which must be equal for a hit: another payload under a copied signature is
   * verified, and fails.
   */
  private readonly cache = new LRUCache<string, { token: string; claims: TokenClaims }>({ max: VERIFIED_CACHE_SIZE });

  constructor(
    private readonly keys: KeyRing,
    private readonly origins: TokenOrigins,
    private readonly leewaySeconds: number,
    private readonly clock: Clock,
  ) {}

  /**
   * Verifies a token, or finds it among those verified before: a bounded cache keyed by
   * the token, whose entries are never used past `exp` (plus leeway). Revocation is checked
   * by the caller on every use, so the cache never outlives one.
   */
  async verify(token: string): Promise<TokenClaims> {
    return (await this.check(token)).claims;
  }

  /** A token verified before and not expired: its claims, with no work but a lookup; else undefined (`check` it). */
  known(token: string): TokenClaims | undefined {
    const entry = this.cache.get(signatureOf(token));
    return entry?.token === token && this.standing(entry.claims, this.clock()) === 'valid' ? entry.claims : undefined;
  }

  /** As verify, and whether the answer came from the cache. */
  async check(token: string): Promise<{ claims: TokenClaims; cached: boolean }> {
    const now = this.clock();
    const key = signatureOf(token);
    const cached = this.cache.get(key);
    if (cached?.token === token) {
      const { claims } = cached;
      const standing = this.standing(claims, now);
      if (standing === 'valid') return { claims, cached: true };
      this.cache.delete(key);
      if (standing === 'expired') throw new TokenExpiredError();
      // its issuer's move ended: verified again, and refused
    }
    const claims = await this.verifySignature(token, now);
    this.cache.set(key, { token, claims });
    return { claims, cached: false };
  }

  /** The one rule of a token verified before: past its exp (and the leeway) it has expired; an issuer or audience no longer accepted (a move that ended) is verified again. */
  private standing(claims: TokenClaims, now: number): 'valid' | 'expired' | 'unaccepted' {
    if (claims.exp + this.leewaySeconds <= now / 1000) return 'expired';
    return this.origins.accepts(claims.iss, claims.aud, now) ? 'valid' : 'unaccepted';
  }

  private async verifySignature(token: string, now: number): Promise<TokenClaims> {
    this.origins.refresh();
    const read = this.origins.reads;
    let decoded: Decoded;
    try {
      decoded = await this.verifyOnce(token, now).catch(async (err: unknown) => {
        // Signed by our key under an issuer or audience not known here: perhaps a move of the
        // store's issuer this node has not read yet (its copy is over a second old).
        if ((err as { code?: string }).code !== CLAIM_VALUE_INVALID) throw err;
        await this.origins.reload();
        if (this.origins.reads === read) throw err;
        return this.verifyOnce(token, now);
      });
    } catch (err) {
      if ((err as { code?: string }).code === 'FAST_JWT_EXPIRED') throw new TokenExpiredError();
      throw new InvalidTokenError();
    }
    if (decoded.header.typ !== 'JWT') throw new InvalidTokenError();
    if ((decoded.payload.iat as number) > now / 1000 + this.leewaySeconds) {
      throw new InvalidTokenError('The token was issued in the future');
    }
    return toClaims(decoded.payload);
  }

  private async verifyOnce(token: string, now: number): Promise<Decoded> {
    // A verifier a call: fast-jwt takes the time and the issuers as options, and both change.
    const verify = createVerifier({
      key: async ({ header }: Decoded) => {
        const key = typeof header.kid === 'string' ? await this.keys.findVerificationKey(header.kid) : undefined;
        if (!key) throw new InvalidTokenError('The token was signed by an unknown key');
        if (header.alg !== key.alg) throw new InvalidTokenError();
        return key.publicPem;
      },
      algorithms: [...SIGNING_ALGS],
      allowedIss: this.origins.issuers(now),
      allowedAud: this.origins.audiences(now),
      clockTimestamp: now,
      clockTolerance: this.leewaySeconds * 1000,
      requiredClaims: ['iss', 'aud', 'exp', 'iat', 'sub', 'jti'],
      complete: true,
    });
    return (await verify(token)) as Decoded;
  }
}

/** A JWS's last part (what follows the last dot); the whole string when it has none. */
function signatureOf(token: string): string {
  return token.slice(token.lastIndexOf('.') + 1);
}

function toClaims(p: Record<string, unknown>): TokenClaims {
  const { uid, username, roles, ver, sid, cm, resources, akid, acidr, mfa_at, mfa_enrol } = p;
  if (
    !Number.isSafeInteger(uid) ||
    !Number.isSafeInteger(ver) ||
    String(uid) !== p.sub ||
    typeof username !== 'string' ||
    !Array.isArray(roles) ||
    !roles.every((r) => typeof r === 'string' && isRole(r)) ||
    (resources !== undefined && !isLevelScopes(resources)) ||
    (sid !== undefined && typeof sid !== 'string') ||
    (cm !== undefined && cm !== true) ||
    (akid !== undefined && typeof akid !== 'string') ||
    (acidr !== undefined && !(Array.isArray(acidr) && acidr.every((c) => typeof c === 'string'))) ||
    (mfa_at !== undefined && !Number.isSafeInteger(mfa_at)) ||
    (mfa_enrol !== undefined && mfa_enrol !== true)
  ) {
    throw new InvalidTokenError('The token does not carry the expected claims');
  }
  return p as unknown as TokenClaims;
}
