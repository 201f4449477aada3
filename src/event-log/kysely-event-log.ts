import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Db } from '../store/database.js';
import type { Database } from '../store/schema.js';
import { usernameKey } from '../users/username.js';
import {
  type EventLogStore,
  type EventQuery,
  type EventRow,
  type LoggedEvent,
  ROUTINE_TYPES,
  SELF_SERVICE_TYPES,
} from './event-log.js';

const iso = (ms: number) => new Date(ms).toISOString();
/** The product writes times to the second: 2014-08-29T11:19:49Z. */
const toSecond = (stored: string) => `${stored.slice(0, 19)}Z`;

/** The event log over any Kysely dialect. */
export class KyselyEventLog implements EventLogStore {
  constructor(private readonly db: Db) {}

  async append(rows: EventRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db
      .insertInto('event_log')
      .values(
        rows.map((r) => ({
          time: iso(r.time),
          type: r.type,
          severity: r.severity,
          uid: r.uid,
          actor_uid: r.actorUid,
          record: JSON.stringify(r.fields),
        })),
      )
      .execute();
  }

  async query(q: EventQuery): Promise<LoggedEvent[]> {
    let query = this.db.selectFrom('event_log').select(['time', 'type', 'severity', 'record']);
    if (q.stime) query = query.where('time', '>=', iso(Date.parse(q.stime)));
    // Until the end of the second named (the times shown are to the second), and never past the year 9999 (ISO text compares as text).
    if (q.etime)
      query = query.where(
        'time',
        '<',
        iso(
          Math.min(Date.parse(q.etime) + 1000 - (Date.parse(q.etime) % 1000), Date.parse('9999-12-31T23:59:59.999Z')),
        ),
      );
    if (q.type) query = query.where('type', '=', q.type);
    if (q.uid !== undefined) query = query.where((eb) => eb.or([eb('uid', '=', q.uid!), eb('actor_uid', '=', q.uid!)]));
    if (q.user !== undefined) {
      // No login holds a NUL (PostgreSQL's text refuses one: the query would fail, not find nobody).
      if (q.user.includes('\u0000')) return [];
      const key = usernameKey(q.user);
      // The account it names now, by its name or its email, as the user store finds it (name_key, email_key).
      const account = this.db
        .selectFrom('users')
        .select('uid')
        .where((eb) => eb.or([eb('name_key', '=', key), eb('email_key', '=', key)]));
      query = query.where((eb) => eb.or([eb('uid', 'in', account), eb('actor_uid', 'in', account)]));
    }
    const rows = await query.orderBy('time', q.order).orderBy('id', q.order).limit(q.limit).offset(q.offset).execute();
    return rows.map((r) => ({
      time: toSecond(r.time),
      type: r.type,
      severity: r.severity as LoggedEvent['severity'],
      ...(JSON.parse(r.record) as Record<string, unknown>),
    }));
  }

  async prune(before: number, keep: number): Promise<void> {
    await this.db.deleteFrom('event_log').where('time', '<', iso(before)).execute();
    // isNoise in SQL: never NULL (a row without an actor or a user is no user's change to itself).
    const noisy = (eb: ExpressionBuilder<Database, 'event_log'>) =>
      eb.or([
        eb('type', 'in', [...ROUTINE_TYPES]),
        eb.and([
          eb('type', 'in', [...SELF_SERVICE_TYPES]),
          eb('actor_uid', 'is not', null),
          eb('uid', 'is not', null),
          eb('actor_uid', '=', eb.ref('uid')),
        ]),
      ]);
    const warnings = this.where((eb) => eb('severity', '=', 'WARNING'));
    const routine = this.where((eb) => eb.and([eb('severity', '=', 'INFO'), noisy(eb)]));
    const changes = this.where((eb) => eb.and([eb('severity', '=', 'INFO'), eb.not(noisy(eb))]));
    const noise = (await warnings.cap(Math.floor(keep / 2))) + (await routine.cap(Math.floor(keep / 4)));
    await changes.cap(keep - noise, false);
  }

  /** One class of events: `cap(n)` keeps its newest n and says how many it kept (counted only when asked and fewer). */
  private where(which: (eb: ExpressionBuilder<Database, 'event_log'>) => Expression<SqlBool>) {
    return {
      cap: async (n: number, count = true): Promise<number> => {
        const past = await this.db
          .selectFrom('event_log')
          .select('id')
          .where(which)
          .orderBy('id', 'desc')
          .limit(1)
          .offset(n)
          .executeTakeFirst();
        if (past) {
          await this.db.deleteFrom('event_log').where(which).where('id', '<=', past.id).execute();
          return n;
        }
        if (!count) return 0;
        const row = await this.db
          .selectFrom('event_log')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where(which)
          .executeTakeFirstOrThrow();
        return Number(row.n);
      },
    };
  }
}
