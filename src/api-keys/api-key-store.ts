import type { Selectable } from 'kysely';
import type { Db } from '../store/database.js';
import type { ApiKeysTable } from '../store/schema.js';
import { serialized } from '../store/serialized.js';
import type { ApiKey } from './api-key.js';

export interface ApiKeyStore {
  /** Adds a key unless its owner has `max` already (checked with the write, on any node): false then. */
  create(key: ApiKey, max: number): Promise<boolean>;
  get(id: string): Promise<ApiKey | undefined>;
  byHash(hash: string): Promise<ApiKey | undefined>;
  listOf(uid: number): Promise<ApiKey[]>;
  update(id: string, changes: Partial<Pick<ApiKey, 'name' | 'expiresAt' | 'allowedCidrs'>>): Promise<void>;
  /** Deletes a key and ends the sessions started with it (as SessionStore.end does); the ids of those sessions. */
  delete(id: string, at: Date, tokensLiveUntil: Date): Promise<string[]>;
  /** Ends the sessions started with a key (its tokens), the key kept; the ids of those sessions. */
  endSessions(id: string, at: Date, tokensLiveUntil: Date): Promise<string[]>;
  /** Moves last_used forward only. */
  touch(id: string, at: Date): Promise<void>;
}

const json = (value: unknown) => (value === null ? null : JSON.stringify(value));

function toKey(row: Selectable<ApiKeysTable>): ApiKey {
  return {
    id: row.id,
    uid: Number(row.uid),
    name: row.name,
    hash: row.hash,
    prefix: row.prefix,
    roleUids: row.role_uids === null ? null : (JSON.parse(row.role_uids) as number[]),
    allowedCidrs: row.allowed_cidrs === null ? null : (JSON.parse(row.allowed_cidrs) as string[]),
    createdAt: new Date(row.created_at),
    expiresAt: new Date(row.expires_at),
    lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at),
  };
}

export class KyselyApiKeyStore implements ApiKeyStore {
  constructor(private readonly db: Db) {}

  create(key: ApiKey, max: number): Promise<boolean> {
    return serialized(this.db, async (trx) => {
      const { count } = await trx
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<string | number>().as('count'))
        .where('uid', '=', key.uid)
        .executeTakeFirstOrThrow();
      if (Number(count) >= max) return false;
      await trx
        .insertInto('api_keys')
        .values({
          id: key.id,
          uid: key.uid,
          name: key.name,
          hash: key.hash,
          prefix: key.prefix,
          role_uids: json(key.roleUids),
          allowed_cidrs: json(key.allowedCidrs),
          created_at: key.createdAt.toISOString(),
          expires_at: key.expiresAt.toISOString(),
          last_used_at: null,
        })
        .execute();
      return true;
    });
  }

  async get(id: string): Promise<ApiKey | undefined> {
    const row = await this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toKey(row);
  }

  async byHash(hash: string): Promise<ApiKey | undefined> {
    const row = await this.db.selectFrom('api_keys').selectAll().where('hash', '=', hash).executeTakeFirst();
    return row && toKey(row);
  }

  async listOf(uid: number): Promise<ApiKey[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('uid', '=', uid)
      .orderBy('created_at')
      .execute();
    return rows.map(toKey);
  }

  async update(id: string, changes: Partial<Pick<ApiKey, 'name' | 'expiresAt' | 'allowedCidrs'>>): Promise<void> {
    await this.db
      .updateTable('api_keys')
      .set({
        ...(changes.name !== undefined && { name: changes.name }),
        ...(changes.expiresAt !== undefined && { expires_at: changes.expiresAt.toISOString() }),
        ...(changes.allowedCidrs !== undefined && { allowed_cidrs: json(changes.allowedCidrs) }),
      })
      .where('id', '=', id)
      .execute();
  }

  delete(id: string, at: Date, tokensLiveUntil: Date): Promise<string[]> {
    return this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('api_keys').where('id', '=', id).execute();
      return endSessionsOf(trx, id, at, tokensLiveUntil);
    });
  }

  endSessions(id: string, at: Date, tokensLiveUntil: Date): Promise<string[]> {
    return this.db.transaction().execute((trx) => endSessionsOf(trx, id, at, tokensLiveUntil));
  }

  async touch(id: string, at: Date): Promise<void> {
    const iso = at.toISOString();
    await this.db
      .updateTable('api_keys')
      .set({ last_used_at: iso })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', iso)]))
      .execute();
  }
}

/** Ends the live sessions started with a key, as a session's end does: each one's tokens refused on every node by the revocation events. */
async function endSessionsOf(trx: Db, id: string, at: Date, tokensLiveUntil: Date): Promise<string[]> {
  const live = await trx
    .selectFrom('sessions')
    .select('id')
    .where('api_key_id', '=', id)
    .where('ended_at', 'is', null)
    .execute();
  for (const { id: sid } of live) {
    await trx.updateTable('sessions').set({ ended_at: at.toISOString() }).where('id', '=', sid).execute();
    await trx
      .insertInto('revocations')
      .values({ sid, expires_at: tokensLiveUntil.toISOString(), created_at: at.toISOString() })
      .execute();
  }
  return live.map((s) => s.id);
}
