import type { AuditRecord, RequestContext } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import type { EventHub } from '../events.js';
import { type EventLogStore, type EventRow, isNoise, rowOf } from './event-log.js';
import { EVENTS_DROPPED } from './event-types.js';

/** Events written in one insert at most. */
const BATCH = 500;
/** Events waiting at most; past it they are counted, not kept (a flood never grows memory). */
const MAX_QUEUED = 20_000;
const PRUNE_EVERY_MS = 60_000;

export interface EventLogLimits {
  /** Days an event is kept; 0: no event log at all. */
  retentionDays: number;
  /** Events kept at most, the newest (a flood never grows the store without bound). */
  maxEvents: number;
  /** How often the queue is written. */
  flushMs: number;
  /** Whether this process prunes: a server does; a CLI command, which does not know the server's limits, never. */
  prune: boolean;
}

/**
 * Puts the audit records into the event log without holding up the request that made them:
 * queued in memory, written in batches every `flushMs`, pruned to `retentionDays` and
 * `maxEvents` once a minute (by a server). A flood of the same refusal, or of the same
 * account's logins from one address, within a batch is one row with a count; past MAX_QUEUED
 * waiting events, more are counted and one `events_dropped` warning says how many; refusals
 * and routine successes never take the room of changes (EventLogStore.prune).
 * A store that fails loses that batch, never a login; what is lost is counted (tessera_event_log_lost_total).
 */
export class EventLogWriter {
  private queue: EventRow[] = [];
  /** Refusals and routine successes waiting, by what they share (type, reason, address, name, user, realm): a flood of the same one is one row with a count. */
  private readonly folded = new Map<string, EventRow>();
  private dropped = 0;
  private flushing?: Promise<void>;
  private lastPrune = 0;
  private readonly timer?: NodeJS.Timeout;

  constructor(
    private readonly store: EventLogStore,
    private readonly clock: Clock,
    private readonly limits: EventLogLimits,
    private readonly onError: (err: unknown) => void = () => {},
    private readonly events?: EventHub,
  ) {
    if (limits.retentionDays > 0) this.timer = setInterval(() => void this.flush(), limits.flushMs).unref();
  }

  add(record: AuditRecord, ctx?: RequestContext): void {
    if (this.limits.retentionDays === 0) return;
    if (this.queue.length >= MAX_QUEUED) {
      this.dropped++;
      return;
    }
    const row = rowOf(record, ctx, this.clock());
    if (isNoise(row)) {
      const { reason, ip, username, realm, outcome, changes } = row.fields;
      const key = JSON.stringify([row.type, outcome, reason, ip, username, realm, changes, row.uid]);
      const same = this.folded.get(key);
      if (same) {
        same.fields.count = Number(same.fields.count ?? 1) + 1;
        return;
      }
      this.folded.set(key, row);
    }
    this.queue.push(row);
  }

  /** Writes what waits (and prunes when due); one flush at a time. */
  flush(): Promise<void> {
    this.flushing ??= this.write().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }

  private async write(): Promise<void> {
    const now = this.clock();
    this.folded.clear(); // those queued keep their counts; new ones start again
    if (this.dropped > 0) {
      this.queue.push({
        time: now,
        type: EVENTS_DROPPED,
        severity: 'WARNING',
        uid: null,
        actorUid: null,
        fields: { outcome: 'failure', count: this.dropped },
      });
      this.events?.emit('eventsLost', 'queue_full', this.dropped);
      this.dropped = 0;
    }
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, BATCH);
      try {
        await this.store.append(batch);
      } catch (err) {
        this.onError(err);
        this.events?.emit(
          'eventsLost',
          'write_failed',
          batch.reduce((n, row) => n + (row.type === EVENTS_DROPPED ? 0 : Number(row.fields.count ?? 1)), 0),
        );
        return;
      }
    }
    if (this.limits.prune && now - this.lastPrune >= PRUNE_EVERY_MS) {
      this.lastPrune = now;
      await this.store.prune(now - this.limits.retentionDays * 86_400_000, this.limits.maxEvents).catch(this.onError);
    }
  }
}
