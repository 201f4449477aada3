import type { AuditRecord } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import { within } from '../deadline.js';
import type { Outbox, SinkRecord } from './outbox.js';
import type { SiemEvent } from './siem-event.js';
import { RETIRING_MS, type SiemSettings, type SinkSettings } from './siem-settings.js';
import { FileTransport } from './transports/file-transport.js';
import { SEND_MS, type Transport, type Transports } from './transports/transport.js';

/** How often a node looks for work when nothing nudged it. */
const TICK_MS = 250;
/**
 * A sink's lease: how long a node delivers it without renewing, and how long the others wait for a
 * dead holder. Renewed before each batch, and longer than a batch may take (SEND_MS): a slow sink
 * is never taken over while its holder still sends to it.
 */
export const LEASE_MS = 10_000;
/** Events a batch holds at most. */
const BATCH = 1000;
/** A batch of sign-ins sent straight waits this long for its sink before it goes to the outbox instead. */
const DIRECT_MS = 2000;
/** A failing sink is tried again after 1, 2, 4 … s, at most this long. */
const MAX_BACKOFF_MS = 30_000;

/** What a node tells of its deliveries (metrics, and the events a failure and a recovery make). */
export interface DeliveryWatcher {
  delivered(sink: string, count: number): void;
  failed(sink: string): void;
  dropped(sink: string, count: number): void;
  /** A sink stopped taking events, or took them again: an event of the log. */
  audit(record: AuditRecord): void;
}

interface SinkState {
  key: string;
  transport: Transport;
  failures: number;
  retryAt: number;
  failing: boolean;
}

/**
 * Delivers the outbox to the sinks, off the request path. Each sink is delivered by one node at
 * a time, the holder of its lease in the store (renewed with every batch; another node takes it
 * over LEASE_MS after a holder died); a batch is deleted from the outbox only once its sink has
 * it, so a failure or a death in the middle sends it again (at least once; the event's `id` lets
 * a receiver drop a repeat). A failing sink is tried again with a backoff, its events kept, up
 * to max_backlog (best_effort: the oldest dropped past it and counted; blocking: changes wait).
 */
export class Delivery {
  private readonly states = new Map<string, SinkState>();
  private readonly timer: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  /** Each sink's record as last read (backlog, failures): what GET shows and blocking mode checks. */
  records = new Map<string, SinkRecord>();
  private readonly hup = () => {
    for (const state of this.states.values()) if (state.transport instanceof FileTransport) state.transport.reopen();
  };

  constructor(
    private readonly outbox: Outbox,
    private readonly settings: SiemSettings,
    private readonly node: string,
    private readonly clock: Clock,
    private readonly watcher: DeliveryWatcher,
    private readonly transports: Transports,
    private readonly onError: (err: unknown) => void = () => {},
  ) {
    this.timer = setInterval(() => this.nudge(), TICK_MS).unref();
    process.on('SIGHUP', this.hup);
  }

  /** Look for work now (events were just written). */
  nudge(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.tick()
      .catch(this.onError)
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.nudge();
        }
      });
  }

  /**
   * Sends sign-ins' events straight to a sink, when it is taking events (not failing, not waiting
   * out a backoff) and answers within DIRECT_MS; throws otherwise, and the caller writes them to
   * the outbox. Counted as delivered, as the outbox's are.
   */
  async sendNow(sink: SinkSettings, events: readonly SiemEvent[]): Promise<void> {
    const state = this.stateOf(sink);
    if (state.failing || this.clock() < state.retryAt) throw new Error(`${sink.name} is failing`);
    await within(state.transport.send(events), DIRECT_MS, () => new Error(`${sink.name} did not answer in time`));
    this.watcher.delivered(sink.name, events.length);
    await this.outbox.note(sink.name, this.clock(), { delivered: events.length });
  }

  /** Waits for the round in progress (tests, and close). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  private async tick(): Promise<void> {
    // As committed (not this node's copy, which a change in progress here has already set).
    const settings = await this.settings.committed();
    this.records = await this.outbox.records();
    const now = this.clock();
    // The sinks, and the retiring ones with events left (under their key), for a day at most.
    const expired = (settings?.retiring ?? []).filter((s) => now - s.retired_at >= RETIRING_MS);
    if (expired.some((s) => (this.records.get(s.key)?.backlog ?? 1) > 0))
      await this.outbox.forget(expired.map((s) => s.key));
    const retiring = (settings?.retiring ?? [])
      .filter((s) => now - s.retired_at < RETIRING_MS && (this.records.get(s.key)?.backlog ?? 1) > 0)
      .map(({ key, retired_at: _, ...s }) => ({ ...s, name: key }));
    const sinks = [...(settings?.sinks ?? []), ...retiring];
    this.forgetGone(sinks);
    // Only a sink with events waiting needs its lease (sign-ins go straight to a sink that takes them).
    let moved = false;
    for (const sink of sinks.filter((s) => (this.records.get(s.name)?.backlog ?? 0) > 0)) {
      try {
        moved = (await this.deliver(sink, settings!.max_backlog, settings!.mode === 'best_effort')) || moved;
      } catch (err) {
        this.onError(err);
      }
    }
    // Read again only when a backlog moved: counting a large one (a sink away for an hour) is not free.
    if (moved) this.records = await this.outbox.records();
  }

  /**
   * `changesToo`: best_effort, where past the bound changes are dropped too (sign-ins first); blocking
   * drops sign-ins alone. Says whether the sink's backlog moved (events dropped or delivered).
   */
  private async deliver(sink: SinkSettings, bound: number, changesToo: boolean): Promise<boolean> {
    const state = this.stateOf(sink);
    const now = this.clock();
    if (!(await this.outbox.lease(sink.name, this.node, now + LEASE_MS, now))) return false;
    const dropped = await this.outbox.trim(sink.name, bound, changesToo);
    if (dropped > 0) this.watcher.dropped(sink.name, dropped);
    let moved = dropped > 0;
    if (now < state.retryAt) return moved;
    const until = now + LEASE_MS / 2;
    while (this.clock() < until) {
      if (!(await this.outbox.lease(sink.name, this.node, this.clock() + LEASE_MS, this.clock()))) return moved;
      const batch = await this.outbox.take(sink.name, BATCH);
      if (batch.length === 0) return moved;
      try {
        await within(
          state.transport.send(batch.map((w) => w.event)),
          SEND_MS,
          () => new Error(`no answer within ${SEND_MS / 1000} s`),
        );
      } catch (err) {
        await this.failed(sink, state, err);
        return moved;
      }
      await this.outbox.remove(batch.map((w) => w.id));
      moved = true;
      await this.outbox.note(sink.name, this.clock(), { delivered: batch.length });
      this.watcher.delivered(sink.name, batch.length);
      if (state.failing) this.recovered(sink, state);
    }
    return moved;
  }

  private async failed(sink: SinkSettings, state: SinkState, err: unknown): Promise<void> {
    const reason = reasonOf(err);
    state.failures++;
    state.retryAt = this.clock() + Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (state.failures - 1));
    this.watcher.failed(sink.name);
    await this.outbox.note(sink.name, this.clock(), { error: reason });
    if (state.failing) return;
    state.failing = true;
    this.watcher.audit({ event: 'siem_sink_failed', outcome: 'failure', target: `siem_sink ${sink.name}`, reason });
  }

  private recovered(sink: SinkSettings, state: SinkState): void {
    state.failing = false;
    state.failures = 0;
    state.retryAt = 0;
    this.watcher.audit({ event: 'siem_sink_recovered', outcome: 'success', target: `siem_sink ${sink.name}` });
  }

  /** A sink's state here, made anew when its settings changed. */
  private stateOf(sink: SinkSettings): SinkState {
    const key = JSON.stringify(sink);
    const known = this.states.get(sink.name);
    if (known?.key === key) return known;
    void known?.transport.close();
    const state = { key, transport: this.transports(sink), failures: 0, retryAt: 0, failing: false };
    this.states.set(sink.name, state);
    return state;
  }

  private forgetGone(sinks: readonly SinkSettings[]): void {
    for (const [name, state] of this.states)
      if (!sinks.some((s) => s.name === name)) {
        void state.transport.close();
        this.states.delete(name);
      }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    process.off('SIGHUP', this.hup);
    await this.settled();
    for (const state of this.states.values()) await state.transport.close();
  }
}

/** What a failure says, without anything a sink's settings hold (a URL's query, a secret). */
function reasonOf(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  return (typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message)
    .replace(/https?:\/\/\S+/g, '<url>')
    .slice(0, 200);
}
