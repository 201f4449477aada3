import type { Selectable } from 'kysely';
import type { Db } from '../store/database.js';
import type { SessionsTable } from '../store/schema.js';
import type { Session, SessionOfUser } from './session.js';
import type { SessionStore } from './session-store.js';

export class KyselySessionStore implements SessionStore {
  constructor(private readonly db: Db) {}

  async create(s: Session): Promise<void> {
    await this.db
      .insertInto('sessions')
      .values({
        id: s.id,
        uid: s.uid,
        realm: s.realm,
        ip: s.ip,
        user_agent: s.userAgent,
        console: s.console ? 1 : 0,
        started_at: s.startedAt.toISOString(),
        refreshed_at: s.refreshedAt.toISOString(),
        last_seen_at: s.lastSeenAt.toISOString(),
        ends_at: s.endsAt.toISOString(),
        ended_at: null,
        api_key_id: s.apiKeyId,
      })
      .execute();
  }

  async get(sid: string): Promise<Session | undefined> {
    const row = await this.db.selectFrom('sessions').selectAll().where('id', '=', sid).executeTakeFirst();
    return row && toSession(row);
  }

  async active(uid: number, now: Date): Promise<Session[]> {
    const rows = await this.live(uid, now).selectAll().orderBy('started_at', 'desc').execute();
    return rows.map(toSession);
  }

  async everyActive(now: Date, limit: number): Promise<SessionOfUser[]> {
    const rows = await this.db
      .selectFrom('sessions')
      .innerJoin('users', 'users.uid', 'sessions.uid')
      .selectAll('sessions')
      .select(['users.name as user_name', 'users.email as user_email'])
      .where('sessions.ended_at', 'is', null)
      .where('sessions.ends_at', '>', now.toISOString())
      .orderBy('sessions.last_seen_at', 'desc')
      .orderBy('sessions.id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ ...toSession(r), name: r.user_name, email: r.user_email }));
  }

  async refreshed(sid: string, at: Date, endsAt: Date): Promise<void> {
    const iso = at.toISOString();
    await this.db
      .updateTable('sessions')
      .set({ refreshed_at: iso, last_seen_at: iso, ends_at: endsAt.toISOString() })
      .where('id', '=', sid)
      .execute();
  }

  async seen(sid: string, at: Date): Promise<void> {
    const iso = at.toISOString();
    await this.db
      .updateTable('sessions')
      .set({ last_seen_at: iso })
      .where('id', '=', sid)
      .where('last_seen_at', '<', iso)
      .execute();
  }

  async end(sid: string, at: Date, tokensLiveUntil: Date): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('sessions')
        .set({ ended_at: at.toISOString() })
        .where('id', '=', sid)
        .where('ended_at', 'is', null)
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) return false;
      await trx
        .insertInto('revocations')
        .values({ sid, expires_at: tokensLiveUntil.toISOString(), created_at: at.toISOString() })
        .execute();
      return true;
    });
  }

  async countLive(now: Date): Promise<number> {
    const row = await this.db
      .selectFrom('sessions')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('ended_at', 'is', null)
      .where('ends_at', '>', now.toISOString())
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async countLiveOf(uid: number, now: Date): Promise<number> {
    const row = await this.live(uid, now)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async latestFrom(
    uid: number,
    ip: string,
    realm: string,
    apiKeyId: string | null,
    now: Date,
  ): Promise<Session | undefined> {
    const row = await this.live(uid, now)
      .selectAll()
      .where('ip', '=', ip)
      .where('realm', '=', realm)
      .where('api_key_id', apiKeyId === null ? 'is' : '=', apiKeyId)
      .where('console', '=', 0)
      .orderBy('started_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && toSession(row);
  }

  async beyond(uid: number, keep: number, now: Date): Promise<string[]> {
    const rows = await this.live(uid, now)
      .select('id')
      .orderBy('started_at', 'desc')
      .orderBy('id')
      .limit(10_000)
      .offset(keep)
      .execute();
    return rows.map((r) => r.id);
  }

  private live(uid: number, now: Date) {
    return this.db
      .selectFrom('sessions')
      .where('uid', '=', uid)
      .where('ended_at', 'is', null)
      .where('ends_at', '>', now.toISOString());
  }

  async prune(before: Date): Promise<void> {
    const iso = before.toISOString();
    await this.db
      .deleteFrom('sessions')
      .where((eb) => eb.or([eb('ends_at', '<', iso), eb('ended_at', '<', iso)]))
      .execute();
  }
}

function toSession(r: Selectable<SessionsTable>): Session {
  return {
    id: r.id,
    uid: r.uid,
    realm: r.realm,
    ip: r.ip,
    userAgent: r.user_agent,
    console: Number(r.console) === 1,
    startedAt: new Date(r.started_at),
    refreshedAt: new Date(r.refreshed_at),
    lastSeenAt: new Date(r.last_seen_at),
    endsAt: new Date(r.ends_at),
    endedAt: r.ended_at === null ? null : new Date(r.ended_at),
    apiKeyId: r.api_key_id ?? null,
  };
}
