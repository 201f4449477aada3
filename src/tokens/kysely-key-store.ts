import type { Transaction } from 'kysely';
import type { Db } from '../store/database.js';
import type { Database } from '../store/schema.js';
import type { KeyState, KeyStore, StoredKey } from './key-store.js';
import { isSigningAlg } from './signing-alg.js';

const date = (iso: string | null) => (iso ? new Date(iso) : null);

export class KyselyKeyStore implements KeyStore {
  constructor(private readonly db: Db) {}

  async listPublished(retiredSince: Date): Promise<StoredKey[]> {
    const rows = await this.db
      .selectFrom('signing_keys')
      .selectAll()
      .where((eb) =>
        eb.or([
          eb('state', 'in', ['next', 'active']),
          eb.and([eb('state', '=', 'retired'), eb('retired_at', '>', retiredSince.toISOString())]),
        ]),
      )
      .orderBy('created_at', 'desc')
      .execute();
    return rows.map((r) => ({
      kid: r.kid,
      alg: isSigningAlg(r.alg) ? r.alg : 'EdDSA',
      publicJwk: JSON.parse(r.public_jwk),
      privateKey: r.private_jwk,
      state: r.state as KeyState,
      createdAt: new Date(r.created_at),
      activateAt: date(r.activate_at),
      retiredAt: date(r.retired_at),
    }));
  }

  async add(key: StoredKey): Promise<void> {
    await this.insert(this.db, key);
  }

  async addFirst(key: StoredKey): Promise<boolean> {
    // The settings row is the claim: of processes starting together on an empty store,
    // one inserts it; the others wait on its lock, then find it there.
    return this.db.transaction().execute(async (trx) => {
      const claim = await trx
        .insertInto('settings')
        .values({ key: 'first_signing_key', value: key.kid })
        .onConflict((oc) => oc.column('key').doNothing())
        .executeTakeFirst();
      if (Number(claim.numInsertedOrUpdatedRows ?? 0n) === 0) return false;
      await this.insert(trx, key);
      return true;
    });
  }

  private async insert(db: Db | Transaction<Database>, key: StoredKey): Promise<void> {
    await db
      .insertInto('signing_keys')
      .values({
        kid: key.kid,
        alg: key.alg,
        public_jwk: JSON.stringify(key.publicJwk),
        private_jwk: key.privateKey,
        state: key.state,
        created_at: key.createdAt.toISOString(),
        activate_at: key.activateAt?.toISOString() ?? null,
        retired_at: null,
      })
      .execute();
  }

  async activateDue(now: Date): Promise<boolean> {
    const at = now.toISOString();
    return this.db.transaction().execute(async (trx) => {
      const due = await trx
        .selectFrom('signing_keys')
        .select('kid')
        .where('state', '=', 'next')
        .where('activate_at', '<=', at)
        .orderBy('activate_at')
        .executeTakeFirst();
      if (!due) return false;
      // Conditional on the state, so that of several nodes doing this at once one wins.
      const promoted = await trx
        .updateTable('signing_keys')
        .set({ state: 'active' })
        .where('kid', '=', due.kid)
        .where('state', '=', 'next')
        .executeTakeFirst();
      if (promoted.numUpdatedRows === 0n) return false;
      await trx
        .updateTable('signing_keys')
        .set({ state: 'retired', retired_at: at })
        .where('state', '=', 'active')
        .where('kid', '!=', due.kid)
        .execute();
      return true;
    });
  }

  async replacePrivateKey(kid: string, privateKey: string): Promise<void> {
    await this.db.updateTable('signing_keys').set({ private_jwk: privateKey }).where('kid', '=', kid).execute();
  }
}
