import type { JWK } from 'jose';
import type { SigningAlg } from './signing-alg.js';

/** next: published, not yet signing. active: signs. retired: published until its tokens expire. */
export type KeyState = 'next' | 'active' | 'retired';

export interface StoredKey {
  kid: string;
  /** Fixed for the key's life: a token is checked only with its kid's algorithm. */
  alg: SigningAlg;
  publicJwk: JWK;
  /** Plain JWK JSON, or sealed under the master key (see KeySealer). */
  privateKey: string;
  state: KeyState;
  createdAt: Date;
  activateAt: Date | null;
  retiredAt: Date | null;
}

export interface KeyStore {
  /** Keys to publish: next and active ones, and those retired after `retiredSince`; newest first. */
  listPublished(retiredSince: Date): Promise<StoredKey[]>;
  add(key: StoredKey): Promise<void>;
  /** Adds the very first key unless another process did; false when one had. */
  addFirst(key: StoredKey): Promise<boolean>;
  /** Makes the oldest due `next` key active and retires the active one; false when none is due. */
  activateDue(now: Date): Promise<boolean>;
  replacePrivateKey(kid: string, privateKey: string): Promise<void>;
}
