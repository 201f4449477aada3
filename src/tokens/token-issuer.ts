import { randomUUID } from 'node:crypto';
import { createSigner } from 'fast-jwt';
import type { Clock } from '../clock.js';
import type { EventHub } from '../events.js';
import type { User } from '../users/user.js';
import type { TokenClaims } from './claims.js';
import type { KeyRing } from './key-ring.js';

type Signer = (payload: TokenClaims) => string;

/**
 * Signs tokens with the key ring's active key, in its algorithm. fast-jwt signs with node:crypto on the
 * calling thread: WebCrypto (jose) would queue each signature in libuv's thread pool,
 * behind the argon2id verifications that fill it.
 */
export class TokenIssuer {
  private readonly signers = new Map<string, Signer>();

  constructor(
    private readonly keys: KeyRing,
    private readonly issuer: string,
    private readonly audiences: readonly string[],
    private readonly clock: Clock,
    private readonly events: EventHub,
  ) {}

  async issue(user: User, ttlSeconds: number): Promise<string> {
    const { kid, alg, privatePem } = this.keys.signingKey();
    let sign = this.signers.get(kid);
    if (!sign) {
      sign = createSigner({ key: privatePem, algorithm: alg, kid }) as Signer;
      this.signers.set(kid, sign);
    }
    const iat = Math.floor(this.clock() / 1000);
    this.events.emit('tokenIssued', alg);
    return sign({
      iss: this.issuer,
      aud: this.audiences.length === 1 ? this.audiences[0]! : [...this.audiences],
      sub: String(user.uid),
      uid: user.uid,
      username: user.username,
      roles: user.rights,
      ver: user.tokenEpoch,
      iat,
      exp: iat + ttlSeconds,
      jti: randomUUID(),
    });
  }
}
