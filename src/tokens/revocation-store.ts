import type { Db } from '../store/database.js';

export interface RevocationEvent {
  id: number;
  uid: number | null;
  jti: string | null;
  /** A session ended: its tokens end. */
  sid: string | null;
  expiresAt: Date | null;
}

export interface RevocationStore {
  /** The current token epoch of a user; undefined when the user does not exist. */
  tokenEpoch(uid: number): Promise<number | undefined>;
  revokeToken(jti: string, expiresAt: Date): Promise<void>;
  /** Events after `id`, oldest first. */
  eventsAfter(id: number, limit: number): Promise<RevocationEvent[]>;
  /** The events of these ids that are there now. */
  eventsIn(ids: readonly number[]): Promise<RevocationEvent[]>;
  /** Events after `id`, oldest first, each user event with the user's current token epoch (null: deleted). */
  feedAfter(id: number, limit: number): Promise<(RevocationEvent & { epoch: number | null })[]>;
  lastEventId(): Promise<number>;
  /** Revoked tokens and ended sessions whose tokens have not expired yet. */
  liveTokens(now: Date): Promise<RevocationEvent[]>;
  /** Forgets token and session revocations past their expiry, and user events older than `before`. */
  prune(now: Date, before: Date): Promise<void>;
}

export class KyselyRevocationStore implements RevocationStore {
  constructor(private readonly db: Db) {}

  async tokenEpoch(uid: number): Promise<number | undefined> {
    const row = await this.db.selectFrom('users').select('token_epoch').where('uid', '=', uid).executeTakeFirst();
    return row && Number(row.token_epoch);
  }

  async revokeToken(jti: string, expiresAt: Date): Promise<void> {
    await this.db
      .insertInto('revocations')
      .values({ jti, expires_at: expiresAt.toISOString(), created_at: new Date().toISOString() })
      .execute();
  }

  async eventsAfter(id: number, limit: number): Promise<RevocationEvent[]> {
    const rows = await this.db
      .selectFrom('revocations')
      .select(['id', 'uid', 'jti', 'sid', 'expires_at'])
      .where('id', '>', id)
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(toEvent);
  }

  async eventsIn(ids: readonly number[]): Promise<RevocationEvent[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('revocations')
      .select(['id', 'uid', 'jti', 'sid', 'expires_at'])
      .where('id', 'in', [...ids])
      .orderBy('id')
      .execute();
    return rows.map(toEvent);
  }

  async feedAfter(id: number, limit: number): Promise<(RevocationEvent & { epoch: number | null })[]> {
    const rows = await this.db
      .selectFrom('revocations')
      .leftJoin('users', 'users.uid', 'revocations.uid')
      .select([
        'revocations.id',
        'revocations.uid',
        'revocations.jti',
        'revocations.sid',
        'revocations.expires_at',
        'users.token_epoch',
      ])
      .where('revocations.id', '>', id)
      .orderBy('revocations.id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ ...toEvent(r), epoch: r.token_epoch === null ? null : Number(r.token_epoch) }));
  }

  async lastEventId(): Promise<number> {
    const row = await this.db
      .selectFrom('revocations')
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirst();
    return Number(row?.id ?? 0);
  }

  async liveTokens(now: Date): Promise<RevocationEvent[]> {
    const rows = await this.db
      .selectFrom('revocations')
      .select(['id', 'uid', 'jti', 'sid', 'expires_at'])
      .where('uid', 'is', null)
      .where('expires_at', '>', now.toISOString())
      .execute();
    return rows.map(toEvent);
  }

  async prune(now: Date, before: Date): Promise<void> {
    await this.db
      .deleteFrom('revocations')
      .where((eb) =>
        eb.or([
          eb.and([eb('uid', 'is', null), eb('expires_at', '<=', now.toISOString())]),
          eb.and([eb('uid', 'is not', null), eb('created_at', '<', before.toISOString())]),
        ]),
      )
      .execute();
  }
}

function toEvent(r: {
  id: number;
  uid: number | null;
  jti: string | null;
  sid: string | null;
  expires_at: string | null;
}): RevocationEvent {
  return {
    id: Number(r.id),
    uid: r.uid,
    jti: r.jti,
    sid: r.sid,
    expiresAt: r.expires_at ? new Date(r.expires_at) : null,
  };
}
