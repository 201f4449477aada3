import { randomUUID } from 'node:crypto';
import { createSigner } from 'fast-jwt';
import type { Clock } from '../clock.js';
import { IssuerMovedError } from '../errors.js';
import type { EventHub } from '../events.js';
import type { User } from '../users/user.js';
import type { TokenOrigins } from './accepted-issuers.js';
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
    /** Whether this node's issuer is still one the store accepts (a move of the store's issuer may have left it behind). */
    private readonly origins: Pick<TokenOrigins, 'refresh' | 'movedTo'>,
    private readonly clock: Clock,
    private readonly events: EventHub,
  ) {}

  /** `session`: the one the token belongs to (its `sid`; `cm` for the console's; `akid`: the API key that started it). */
  async issue(
    user: User,
    ttlSeconds: number,
    session?: {
      sid: string;
      console: boolean;
      apiKeyId?: string;
      cidrs?: readonly string[];
      mfaAt?: number;
      enrolOnly?: boolean;
    },
  ): Promise<string> {
    this.origins.refresh();
    const movedTo = this.origins.movedTo(this.clock());
    if (movedTo) throw new IssuerMovedError(this.issuer, movedTo);
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
      ...(user.resources.length > 0 && { resources: user.resources }),
      ver: user.tokenEpoch,
      iat,
      exp: iat + ttlSeconds,
      jti: randomUUID(),
      ...(session && { sid: session.sid }),
      ...(session?.console && { cm: true as const }),
      ...(session?.apiKeyId && { akid: session.apiKeyId }),
      ...(session?.cidrs && { acidr: [...session.cidrs] }),
      ...(session?.mfaAt !== undefined && { mfa_at: session.mfaAt }),
      ...(session?.enrolOnly && { mfa_enrol: true as const }),
    });
  }
}
