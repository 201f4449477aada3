import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { Clock } from '../clock.js';
import type { User } from '../users/user.js';
import type { TokenClaims } from './claims.js';
import { type KeyRing, SIGNING_ALG } from './key-ring.js';

export class TokenIssuer {
  constructor(
    private readonly keys: KeyRing,
    private readonly issuer: string,
    private readonly clock: Clock,
  ) {}

  async issue(user: User, ttlSeconds: number): Promise<string> {
    const { kid, privateKey } = this.keys.signingKey();
    const iat = Math.floor(this.clock() / 1000);
    const claims: Omit<TokenClaims, 'iss' | 'sub' | 'iat' | 'exp' | 'jti'> = {
      uid: user.uid,
      username: user.username,
      roles: [user.role],
      ver: user.tokenEpoch,
    };
    return new SignJWT(claims)
      .setProtectedHeader({ alg: SIGNING_ALG, typ: 'JWT', kid })
      .setIssuer(this.issuer)
      .setSubject(String(user.uid))
      .setIssuedAt(iat)
      .setExpirationTime(iat + ttlSeconds)
      .setJti(randomUUID())
      .sign(privateKey);
  }
}
