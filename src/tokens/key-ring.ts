import { createPrivateKey, createPublicKey } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import type { Clock } from '../clock.js';
import { TTL_MAX_SECONDS } from './claims.js';
import { KeySealer } from './key-sealer.js';
import type { KeyState, KeyStore, StoredKey } from './key-store.js';
import { generateKeyPair, type SigningAlg } from './signing-alg.js';

/** How often a node re-reads the keys, so that it publishes a staged key within this time. */
export const KEY_REFRESH_MS = 1000;

interface LoadedKey {
  kid: string;
  alg: SigningAlg;
  state: KeyState;
  activateAt: Date | null;
  publicJwk: JWK;
  publicPem: string;
  privatePem: string;
}

export interface KeyRingOptions {
  sealer: KeySealer;
  clock: Clock;
  /** The algorithm of keys made without one named. */
  alg: SigningAlg;
  /** How long a new key is published before it signs. */
  activationDelayMs: number;
  /** Clock leeway: a retired key stays published this much past its last token's expiry. */
  leewayMs: number;
}

/**
 * The signing keys of every node, kept in the store and imported once into KeyObjects.
 * The active key signs; next, active and recently retired keys verify and are published.
 * A rotation stages a key (published at once, signing only after the activation delay),
 * so that verifiers caching the JWKS never meet an unknown kid.
 */
export class KeyRing {
  private keys: LoadedKey[] = [];
  private timer?: NodeJS.Timeout;
  private lastMissRefresh = 0;

  private constructor(
    private readonly store: KeyStore,
    private readonly options: KeyRingOptions,
  ) {}

  /** Loads the keys, making the first one (active at once: nobody can have cached it yet). */
  static async load(store: KeyStore, options: KeyRingOptions): Promise<KeyRing> {
    const ring = new KeyRing(store, options);
    await ring.refresh();
    if (!ring.keys.some((k) => k.state === 'active')) {
      await store.addFirst(await ring.newKey('active', null));
      await ring.refresh();
    }
    return ring;
  }

  /** Re-reads the store every KEY_REFRESH_MS, activating keys whose time has come. */
  start(): void {
    this.timer = setInterval(() => void this.refresh().catch(() => {}), KEY_REFRESH_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async refresh(): Promise<void> {
    const now = this.options.clock();
    await this.store.activateDue(new Date(now));
    const retiredSince = new Date(now - TTL_MAX_SECONDS * 1000 - this.options.leewayMs);
    const stored = await this.store.listPublished(retiredSince);
    const known = new Map(this.keys.map((k) => [k.kid, k]));
    this.keys = await Promise.all(
      stored.map(async (k) => {
        const loaded = known.get(k.kid);
        return loaded ? { ...loaded, state: k.state, activateAt: k.activateAt } : this.import(k);
      }),
    );
  }

  /** Stages a new key (of `alg`, or the configured one); returns its kid, algorithm and when it starts to sign. */
  async rotate(alg = this.options.alg): Promise<{ kid: string; alg: SigningAlg; activatesAt: Date }> {
    const activatesAt = new Date(this.options.clock() + this.options.activationDelayMs);
    const key = await this.newKey('next', activatesAt, alg);
    await this.store.add(key);
    await this.refresh();
    return { kid: key.kid, alg, activatesAt };
  }

  signingKey(): { kid: string; alg: SigningAlg; privatePem: string } {
    const key = this.keys.find((k) => k.state === 'active');
    if (!key) throw new Error('the key ring has no active key');
    return key;
  }

  /** The public key of a kid, as PEM, with the one algorithm it verifies. */
  verificationKey(kid: string): { publicPem: string; alg: SigningAlg } | undefined {
    return this.keys.find((k) => k.kid === kid);
  }

  /** The algorithms of the published keys. */
  algorithms(): SigningAlg[] {
    return [...new Set(this.keys.map((k) => k.alg))];
  }

  /**
   * The key of a kid, re-reading the store once if it is unknown (another node may have
   * made it a moment ago). Unknown kids cause at most one read a second.
   */
  async findVerificationKey(kid: string): Promise<{ publicPem: string; alg: SigningAlg } | undefined> {
    const known = this.verificationKey(kid);
    if (known || this.options.clock() - this.lastMissRefresh < KEY_REFRESH_MS) return known;
    this.lastMissRefresh = this.options.clock();
    await this.refresh().catch(() => {});
    return this.verificationKey(kid);
  }

  jwks(): { keys: JWK[] } {
    return { keys: this.keys.map((k) => ({ ...k.publicJwk, kid: k.kid, alg: k.alg, use: 'sig' })) };
  }

  /** kid, algorithm, state and activation time of each published key. */
  list(): { kid: string; alg: SigningAlg; state: KeyState; activateAt: Date | null }[] {
    return this.keys.map(({ kid, alg, state, activateAt }) => ({ kid, alg, state, activateAt }));
  }

  private async import(k: StoredKey): Promise<LoadedKey> {
    const { sealer } = this.options;
    const privateJwk = sealer.open(k.privateKey, k.kid);
    if (sealer.sealing && !KeySealer.isSealed(k.privateKey)) {
      await this.store.replacePrivateKey(k.kid, sealer.seal(privateJwk, k.kid)); // seal keys kept before a master key was set
    }
    return {
      kid: k.kid,
      alg: k.alg,
      state: k.state,
      activateAt: k.activateAt,
      publicJwk: k.publicJwk,
      publicPem: createPublicKey({ key: k.publicJwk, format: 'jwk' }).export({ format: 'pem', type: 'spki' }) as string,
      privatePem: createPrivateKey({ key: privateJwk, format: 'jwk' }).export({
        format: 'pem',
        type: 'pkcs8',
      }) as string,
    };
  }

  private async newKey(state: KeyState, activateAt: Date | null, alg = this.options.alg): Promise<StoredKey> {
    const { publicKey, privateKey } = await generateKeyPair(alg);
    const publicJwk = publicKey.export({ format: 'jwk' }) as JWK;
    const kid = await calculateJwkThumbprint(publicJwk);
    return {
      kid,
      alg,
      publicJwk,
      privateKey: this.options.sealer.seal(privateKey.export({ format: 'jwk' }) as JWK, kid),
      state,
      createdAt: new Date(this.options.clock()),
      activateAt,
      retiredAt: null,
    };
  }
}
