import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import type { SiemEvent } from './siem-event.js';

/** A row of the outbox: an event waiting for one sink. */
export interface Waiting {
  id: number;
  event: SiemEvent;
}

/** How a sink's delivery stands, as every node sees it. */
export interface SinkRecord {
  node: string;
  failingSince?: number;
  lastError?: string;
  lastDeliveredAt?: number;
  delivered: number;
  failed: number;
  dropped: number;
  /** Events waiting, and since when the oldest (ms); of them, the changes' (what blocking mode bounds). */
  backlog: number;
  changes: number;
  oldestAt?: number;
}

const num = (v: unknown) => (v === null || v === undefined ? undefined : Number(v));

/**
 * The outbox in the store: events are added in the transaction of the change they record (or
 * in batches, for sign-ins), taken in order of their id by the node that holds the sink's lease,
 * and deleted once delivered. A row is deleted only when delivered (or dropped past the bound in
 * best_effort mode), so a node that dies mid-batch leaves it for the next holder: at least once.
 */
export class Outbox {
  constructor(private readonly db: Db) {}

  /** `change`: the events of a change, in its transaction; else sign-ins' and a node's own, which a bound drops first. */
  async add(sinks: readonly string[], events: readonly SiemEvent[], now: number, change: boolean): Promise<void> {
    if (sinks.length === 0 || events.length === 0) return;
    const rows = sinks.flatMap((sink) =>
      events.map((e) => ({
        sink,
        event: JSON.stringify(e),
        change: change ? (1 as const) : (0 as const),
        created_at: now,
      })),
    );
    for (let i = 0; i < rows.length; i += 500)
      await this.db
        .insertInto('siem_outbox')
        .values(rows.slice(i, i + 500))
        .execute();
  }

  async take(sink: string, limit: number): Promise<Waiting[]> {
    const rows = await this.db
      .selectFrom('siem_outbox')
      .select(['id', 'event'])
      .where('sink', '=', sink)
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ id: Number(r.id), event: JSON.parse(r.event) as SiemEvent }));
  }

  async remove(ids: readonly number[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 500)
      await this.db
        .deleteFrom('siem_outbox')
        .where('id', 'in', ids.slice(i, i + 500))
        .execute();
  }

  /**
   * Keeps at most `keep` of a sink's events, dropping the oldest sign-ins first, then (unless
   * `changesToo` is false) the oldest changes; says how many it dropped.
   */
  async trim(sink: string, keep: number, changesToo: boolean): Promise<number> {
    const changes = await this.count(sink, true);
    // Sign-ins get what the changes leave of the bound (all of it when changes are never dropped).
    let dropped = await this.dropOldest(sink, false, changesToo ? Math.max(0, keep - changes) : keep);
    if (changesToo) dropped += await this.dropOldest(sink, true, keep);
    if (dropped === 0) return 0;
    await this.db
      .updateTable('siem_sinks')
      .set((eb) => ({ dropped: eb('dropped', '+', dropped) }))
      .where('sink', '=', sink)
      .execute();
    return dropped;
  }

  private async count(sink: string, change: boolean): Promise<number> {
    const row = await this.db
      .selectFrom('siem_outbox')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('sink', '=', sink)
      .where('change', '=', change ? 1 : 0)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Keeps the newest `keep` of a sink's events of one kind; says how many it dropped. */
  private async dropOldest(sink: string, change: boolean, keep: number): Promise<number> {
    const edge = await this.db
      .selectFrom('siem_outbox')
      .select('id')
      .where('sink', '=', sink)
      .where('change', '=', change ? 1 : 0)
      .orderBy('id', 'desc')
      .limit(1)
      .offset(keep)
      .executeTakeFirst();
    if (!edge) return 0;
    const result = await this.db
      .deleteFrom('siem_outbox')
      .where('sink', '=', sink)
      .where('change', '=', change ? 1 : 0)
      .where('id', '<=', edge.id)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** The sink's lease for `node` until `until` (ms), when it is free, lapsed or already this node's. */
  async lease(sink: string, node: string, until: number, now: number): Promise<boolean> {
    const row = await this.db
      .insertInto('siem_sinks')
      .values({ sink, node, lease_until: until })
      .onConflict((oc) =>
        oc
          .column('sink')
          .doUpdateSet({ node, lease_until: until })
          .where((eb) => eb.or([eb('siem_sinks.lease_until', '<', now), eb('siem_sinks.node', '=', node)])),
      )
      .returning('node')
      .executeTakeFirst();
    return row?.node === node;
  }

  /** A batch delivered (`count` > 0) or a failure (`error`): the sink's record as every node reads it. */
  async note(sink: string, now: number, outcome: { delivered: number } | { error: string }): Promise<void> {
    await this.db
      .updateTable('siem_sinks')
      .set((eb) =>
        'error' in outcome
          ? {
              failed: eb('failed', '+', 1),
              last_error: outcome.error,
              failing_since: eb.fn.coalesce('failing_since', sql.lit(now)),
            }
          : {
              delivered: eb('delivered', '+', outcome.delivered),
              last_delivered_at: now,
              failing_since: null,
              last_error: null,
            },
      )
      .where('sink', '=', sink)
      .execute();
  }

  async records(): Promise<Map<string, SinkRecord>> {
    const [sinks, waiting] = await Promise.all([
      this.db.selectFrom('siem_sinks').selectAll().execute(),
      this.db
        .selectFrom('siem_outbox')
        .select((eb) => ['sink', 'change', eb.fn.countAll<number>().as('n'), eb.fn.min('created_at').as('oldest')])
        .groupBy(['sink', 'change'])
        .execute(),
    ]);
    const byName = new Map<string, SinkRecord>();
    for (const s of sinks)
      byName.set(s.sink, {
        node: s.node,
        failingSince: num(s.failing_since),
        lastError: s.last_error ?? undefined,
        lastDeliveredAt: num(s.last_delivered_at),
        delivered: Number(s.delivered),
        failed: Number(s.failed),
        dropped: Number(s.dropped),
        backlog: 0,
        changes: 0,
      });
    for (const w of waiting) {
      const record = byName.get(w.sink) ?? { node: '', delivered: 0, failed: 0, dropped: 0, backlog: 0, changes: 0 };
      const oldest = num(w.oldest);
      byName.set(w.sink, {
        ...record,
        backlog: record.backlog + Number(w.n),
        changes: record.changes + (Number(w.change) === 1 ? Number(w.n) : 0),
        oldestAt: record.oldestAt === undefined || (oldest ?? Infinity) < record.oldestAt ? oldest : record.oldestAt,
      });
    }
    return byName;
  }

  /** A sink's waiting events under another key (a sink retiring: its backlog stays its own). */
  async rename(from: string, to: string): Promise<void> {
    await this.db.updateTable('siem_outbox').set({ sink: to }).where('sink', '=', from).execute();
  }

  /** A sink gone from the settings: its waiting events and its record. */
  async forget(sinks: readonly string[]): Promise<void> {
    if (sinks.length === 0) return;
    await this.db.deleteFrom('siem_outbox').where('sink', 'in', sinks).execute();
    await this.db.deleteFrom('siem_sinks').where('sink', 'in', sinks).execute();
  }
}
