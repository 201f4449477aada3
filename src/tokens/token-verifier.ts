import { type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../clock.js';
import { InvalidTokenError } from '../errors.js';
import { isRole } from '../users/user.js';
import type { TokenClaims } from './claims.js';
import { type KeyRing, SIGNING_ALG } from './key-ring.js';

/** Verified tokens kept, about 1 KiB each. */
const VERIFIED_CACHE_SIZE = 10_000;

/**
 * Verifies Tessera tokens: only EdDSA (RFC 8725: an allow-list, never the header's word),
 * only keys of our key ring chosen by `kid`, our issuer, and exp/iat within the leeway.
 */
export class TokenVerifier {
  private readonly getKey: JWTVerifyGetKey;
  private readonly cache = new LRUCache<string, TokenClaims>({ max: VERIFIED_CACHE_SIZE });

  constructor(
    keys: KeyRing,
    private readonly issuer: string,
    private readonly leewaySeconds: number,
    private readonly clock: Clock,
  ) {
    this.getKey = async (header) => {
      const key = header.kid === undefined ? undefined : await keys.findVerificationKey(header.kid);
      if (!key) throw new InvalidTokenError('The token was signed by an unknown key');
      return key;
    };
  }

  /**
   * Verifies a token, or finds it among those verified before: a bounded cache keyed by
   * the token, whose entries are never used past `exp` (plus leeway). Revocation is checked
   * by the caller on every use, so the cache never outlives one.
   */
  async verify(token: string): Promise<TokenClaims> {
    const now = this.clock();
    const cached = this.cache.get(token);
    if (cached) {
      if (cached.exp + this.leewaySeconds > now / 1000) return cached;
      this.cache.delete(token);
    }
    const claims = await this.verifySignature(token, now);
    this.cache.set(token, claims);
    return claims;
  }

  private async verifySignature(token: string, now: number): Promise<TokenClaims> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.getKey, {
        algorithms: [SIGNING_ALG],
        issuer: this.issuer,
        clockTolerance: this.leewaySeconds,
        currentDate: new Date(now),
        requiredClaims: ['exp', 'iat', 'sub', 'jti'],
        typ: 'JWT',
      }));
    } catch {
      throw new InvalidTokenError();
    }
    if ((payload.iat as number) > now / 1000 + this.leewaySeconds) {
      throw new InvalidTokenError('The token was issued in the future');
    }
    return toClaims(payload);
  }
}

function toClaims(p: JWTPayload): TokenClaims {
  const { uid, username, roles, ver } = p as Record<string, unknown>;
  if (
    !Number.isSafeInteger(uid) ||
    !Number.isSafeInteger(ver) ||
    String(uid) !== p.sub ||
    typeof username !== 'string' ||
    !Array.isArray(roles) ||
    !roles.every((r) => typeof r === 'string' && isRole(r))
  ) {
    throw new InvalidTokenError('The token does not carry the expected claims');
  }
  return p as unknown as TokenClaims;
}
