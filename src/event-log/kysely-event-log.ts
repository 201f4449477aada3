import type { Db } from '../store/database.js';
import type { EventLogStore, EventQuery, EventRow, LoggedEvent } from './event-log.js';

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
    const warnings = await this.db
      .selectFrom('event_log')
      .select('id')
      .where('severity', '=', 'WARNING')
      .orderBy('id', 'desc')
      .limit(1)
      .offset(Math.floor(keep / 2))
      .executeTakeFirst();
    if (warnings)
      await this.db.deleteFrom('event_log').where('severity', '=', 'WARNING').where('id', '<=', warnings.id).execute();
    const newest = await this.db
      .selectFrom('event_log')
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirst();
    const top = Number(newest?.id ?? 0);
    if (top > keep)
      await this.db
        .deleteFrom('event_log')
        .where('id', '<=', top - keep)
        .execute();
  }
}
