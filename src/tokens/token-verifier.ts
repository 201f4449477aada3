import { type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import type { Clock } from '../clock.js';
import { InvalidTokenError } from '../errors.js';
import { isRole } from '../users/user.js';
import type { TokenClaims } from './claims.js';
import { type KeyRing, SIGNING_ALG } from './key-ring.js';

/**
 * Verifies Tessera tokens: only EdDSA (RFC 8725: an allow-list, never the header's word),
 * only keys of our key ring chosen by `kid`, our issuer, and exp/iat within the leeway.
 */
export class TokenVerifier {
  private readonly getKey: JWTVerifyGetKey;

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

  async verify(token: string): Promise<TokenClaims> {
    const now = this.clock();
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
