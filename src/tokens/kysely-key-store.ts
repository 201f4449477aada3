import type { Db } from '../store/database.js';
import type { KeyState, KeyStore, StoredKey } from './key-store.js';

export class KyselyKeyStore implements KeyStore {
  constructor(private readonly db: Db) {}

  async listUsable(): Promise<StoredKey[]> {
    const rows = await this.db
      .selectFrom('signing_keys')
      .selectAll()
      .where('state', 'in', ['active', 'retired'])
      .orderBy('created_at', 'desc')
      .execute();
    return rows.map((r) => ({
      kid: r.kid,
      alg: 'EdDSA',
      publicJwk: JSON.parse(r.public_jwk),
      privateJwk: JSON.parse(r.private_jwk),
      state: r.state as KeyState,
      createdAt: new Date(r.created_at),
    }));
  }

  async add(key: StoredKey): Promise<void> {
    await this.db
      .insertInto('signing_keys')
      .values({
        kid: key.kid,
        alg: key.alg,
        public_jwk: JSON.stringify(key.publicJwk),
        private_jwk: JSON.stringify(key.privateJwk),
        state: key.state,
        created_at: key.createdAt.toISOString(),
      })
      .execute();
  }
}
