import { randomUUID } from 'node:crypto';
import type { AuditRecord, RequestContext } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import { rowOf } from '../event-log/event-log.js';
import { currentUnit, type Unit } from '../unit-of-work.js';
import type { Outbox } from './outbox.js';
import type { SiemEvent } from './siem-event.js';
import type { SiemSettings, SinkSettings } from './siem-settings.js';

/**
 * Sign-ins and other events outside a change, waiting at most this long to be sent. Each batch
 * costs a connection to a syslog collector (a request to a webhook): fewer, larger batches cost a
 * login less (bench/RESULTS.md), and a collector sees four connections a second from a node.
 */
const FLUSH_MS = 250;
/** Past this many waiting (the store away), more are counted as dropped rather than kept in memory. */
const MAX_WAITING = 50_000;

/**
 * Puts each audited event in the outbox of every sink. An event of a change (a request or a
 * command in a unit of work) is written in the change's transaction, so that both commit or
 * neither does: once a change is answered, its event is kept. Sign-ins, refusals and what a node
 * does of itself are not changes: every 250 ms, off the request path, they are sent straight to
 * each sink that takes them then, and written to the outbox of any other (a node killed with -9
 * loses at most those of the last 250 ms and the batch in flight).
 */
export class SiemRecorder {
  private waiting: SiemEvent[] = [];
  private readonly made = new WeakMap<AuditRecord, SiemEvent>();
  /** This batch's refusals by what they share: a repeat adds to its `count`. */
  private readonly refusals = new Map<string, SiemEvent>();
  private readonly units = new WeakMap<Unit, SiemEvent[]>();
  private readonly timer: NodeJS.Timeout;
  private flushing?: Promise<void>;
  /** Events that could not be kept (the store away, or too many waiting). */
  lost = 0;
  /** Told when events were written (a server's delivery looks for them at once). */
  onWritten: () => void = () => {};
  /**
   * A server's delivery, which sends a batch of sign-ins straight to a sink that takes events now
   * (no outbox write and delete for each: the hot path's cost); undefined in a CLI command.
   */
  sendNow?: (sink: SinkSettings, events: readonly SiemEvent[]) => Promise<void>;

  constructor(
    private readonly outbox: Outbox,
    private readonly settings: SiemSettings,
    private readonly node: string,
    private readonly clock: Clock,
    private readonly onError: (err: unknown) => void = () => {},
  ) {
    this.timer = setInterval(() => void this.flush(), FLUSH_MS).unref();
  }

  record(record: AuditRecord, ctx?: RequestContext): void {
    if (this.settings.freshSinks()?.length === 0) return; // no sink: nothing to keep
    const unit = currentUnit();
    if (unit) {
      this.inUnit(unit, this.eventOf(record, ctx));
      return;
    }
    // A flood of the same refusal (who, from where, why) within a batch is one event with a count:
    // a repeat only counts, and no event is made for it.
    const row = rowOf(record, ctx, this.clock());
    const key = row.severity === 'WARNING' ? foldKeyOf(row.type, row.fields) : undefined;
    if (key === undefined || !this.folded(key)) this.queue(this.eventOf(record, ctx), key);
  }

  /**
   * The event of a record also to these outbox keys (retiring sinks: one taken out hears of it
   * itself, the event of its removal after the rest of its backlog, so that an intruder who turns
   * the auditing off or points it elsewhere is seen doing it). Written with the change.
   */
  alsoTo(keys: readonly string[], record: AuditRecord, ctx: RequestContext): void {
    if (keys.length === 0) return;
    const event = this.eventOf(record, ctx);
    const write = () => this.outbox.add(keys, [event], this.clock(), true);
    const unit = currentUnit();
    if (unit) unit.beforeCommit.push(write);
    else void write().catch(this.onError);
  }

  /** A record's event, made once (the same id wherever it goes). */
  private eventOf(record: AuditRecord, ctx: RequestContext | undefined): SiemEvent {
    let event = this.made.get(record);
    if (!event) this.made.set(record, (event = this.makeEvent(record, ctx)));
    return event;
  }

  private makeEvent(record: AuditRecord, ctx: RequestContext | undefined): SiemEvent {
    const now = this.clock();
    const row = rowOf(record, ctx, now);
    // Without a rest copy of the row and a spread of its fields: cheaper on every sign-in.
    const head = { id: randomUUID(), time: new Date(now).toISOString(), type: row.type, severity: row.severity };
    return Object.assign(head, { node: this.node }, row.fields);
  }

  /** Whether a refusal like this one waits already: then it counts one more. */
  private folded(key: string): boolean {
    const same = this.refusals.get(key);
    if (same) same.count = Number(same.count ?? 1) + 1;
    return same !== undefined;
  }

  /** An event for the next batch; `key`: a refusal's, that its repeats fold into (one that could not be kept is counted lost, and so are its repeats). */
  private queue(event: SiemEvent, key?: string): void {
    if (this.waiting.length >= MAX_WAITING) {
      this.lost++;
      return;
    }
    this.waiting.push(event);
    if (key !== undefined) this.refusals.set(key, event);
  }

  /** The unit's events, written as its last statements before the commit. */
  private inUnit(unit: Unit, event: SiemEvent): void {
    const events = this.units.get(unit);
    if (events) {
      events.push(event);
      return;
    }
    this.units.set(unit, [event]);
    unit.beforeCommit.push(async () => {
      const sinks = (await this.settings.get())?.sinks ?? [];
      await this.outbox.add(
        sinks.map((s) => s.name),
        this.units.get(unit) ?? [],
        this.clock(),
        true,
      );
    });
    unit.afterCommit.push(() => this.onWritten());
    // Undone, its changes' events go with it; what it refused still happened, and is written as a sign-in's would be.
    unit.afterRollback.push(() => {
      for (const e of this.units.get(unit) ?? []) {
        const key = e.outcome === 'failure' ? foldKeyOf(e.type, e) : undefined;
        if (key !== undefined && !this.folded(key)) this.queue(e, key);
      }
    });
  }

  flush(): Promise<void> {
    this.flushing ??= this.write().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (this.waiting.length === 0) return;
    const events = this.waiting;
    this.waiting = [];
    this.refusals.clear();
    try {
      const sinks = (await this.settings.get())?.sinks ?? [];
      // Straight to each sink that takes them now; through the outbox to any that does not.
      const late = await Promise.all(
        sinks.map(async (sink) =>
          (await this.sendNow?.(sink, events).then(
            () => true,
            () => false,
          ))
            ? []
            : [sink.name],
        ),
      );
      await this.outbox.add(late.flat(), events, this.clock(), false);
      if (late.flat().length > 0) this.onWritten();
    } catch (err) {
      // Kept for the next flush, as many as there is room for.
      const room = Math.max(0, MAX_WAITING - this.waiting.length);
      // Every attempt a dropped event stood for (a folded refusal's count).
      for (const e of events.slice(room)) this.lost += Number(e.count ?? 1);
      this.waiting = [...events.slice(0, room), ...this.waiting];
      this.onError(err);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

/** Not what a refusal shares with its repeats: an event's own, and what its row's type and severity say already. */
const OWN = new Set(['id', 'time', 'type', 'severity', 'node', 'request_id', 'count']);

/** What a refusal shares with its repeats (from its row's fields, or its event): every field but its own. */
function foldKeyOf(type: string, fields: Record<string, unknown>): string {
  let key = type;
  for (const name in fields) if (!OWN.has(name)) key += `\n${name}=${JSON.stringify(fields[name])}`;
  return key;
}
