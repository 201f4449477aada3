import type { JWK } from 'jose';

export type KeyState = 'active' | 'retired';

export interface StoredKey {
  kid: string;
  alg: 'EdDSA';
  publicJwk: JWK;
  privateJwk: JWK;
  state: KeyState;
  createdAt: Date;
}

export interface KeyStore {
  /** Keys that may verify tokens, newest first. */
  listUsable(): Promise<StoredKey[]>;
  add(key: StoredKey): Promise<void>;
}
