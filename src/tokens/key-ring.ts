import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import type { KeyStore, StoredKey } from './key-store.js';

export const SIGNING_ALG = 'EdDSA';

interface LoadedKey {
  kid: string;
  state: StoredKey['state'];
  publicJwk: JWK;
  publicKey: KeyObject;
  privateKey: KeyObject;
}

/**
 * The signing keys, imported once into KeyObjects. The newest active key signs; every
 * usable key verifies and is published in the JWKS.
 */
export class KeyRing {
  private constructor(private readonly keys: LoadedKey[]) {}

  /** Loads the keys from the store, making the first Ed25519 key when there is none. */
  static async load(store: KeyStore): Promise<KeyRing> {
    let stored = await store.listUsable();
    if (!stored.some((k) => k.state === 'active')) {
      await store.add(await newEd25519Key());
      stored = await store.listUsable();
    }
    return new KeyRing(
      stored.map((k) => ({
        kid: k.kid,
        state: k.state,
        publicJwk: k.publicJwk,
        publicKey: createPublicKey({ key: k.publicJwk, format: 'jwk' }),
        privateKey: createPrivateKey({ key: k.privateJwk, format: 'jwk' }),
      })),
    );
  }

  signingKey(): { kid: string; privateKey: KeyObject } {
    const key = this.keys.find((k) => k.state === 'active');
    if (!key) throw new Error('the key ring has no active key');
    return key;
  }

  verificationKey(kid: string): KeyObject | undefined {
    return this.keys.find((k) => k.kid === kid)?.publicKey;
  }

  jwks(): { keys: JWK[] } {
    return { keys: this.keys.map((k) => ({ ...k.publicJwk, kid: k.kid, alg: SIGNING_ALG, use: 'sig' })) };
  }
}

async function newEd25519Key(): Promise<StoredKey> {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const publicJwk = publicKey.export({ format: 'jwk' }) as JWK;
  return {
    kid: await calculateJwkThumbprint(publicJwk),
    alg: SIGNING_ALG,
    publicJwk,
    privateJwk: privateKey.export({ format: 'jwk' }) as JWK,
    state: 'active',
    createdAt: new Date(),
  };
}
