import { Counter, Gauge, type Registry } from 'prom-client';
import type { Clock } from '../clock.js';
import type { SinkRecord } from './outbox.js';

/**
 * Each sink's delivery in Prometheus terms: what this node delivered, failed and dropped
 * (counters, labelled by the sink's name); the backlog and the age of its oldest event as the
 * store has them (gauges, the same on every node). Sink names are the operator's, few and fixed.
 */
export class SiemMetrics {
  private readonly deliveredTotal: Counter<'sink'>;
  private readonly failedTotal: Counter<'sink'>;
  private readonly droppedTotal: Counter<'sink'>;

  constructor(registry: Registry, records: () => ReadonlyMap<string, SinkRecord>, clock: Clock, lost: () => number) {
    const registers = [registry];
    this.deliveredTotal = new Counter({
      name: 'tessera_siem_delivered_total',
      help: 'Events this node delivered to a SIEM sink',
      labelNames: ['sink'],
      registers,
    });
    this.failedTotal = new Counter({
      name: 'tessera_siem_failures_total',
      help: 'Batches a SIEM sink did not take (sent again later)',
      labelNames: ['sink'],
      registers,
    });
    this.droppedTotal = new Counter({
      name: 'tessera_siem_dropped_total',
      help: 'Events dropped undelivered: best_effort mode, past max_backlog, the oldest first',
      labelNames: ['sink'],
      registers,
    });
    new Gauge({
      name: 'tessera_siem_backlog',
      help: 'Events waiting for a SIEM sink',
      labelNames: ['sink'],
      registers,
      collect() {
        this.reset();
        for (const [sink, r] of records()) this.set({ sink }, r.backlog);
      },
    });
    new Gauge({
      name: 'tessera_siem_oldest_undelivered_seconds',
      help: 'Age of the oldest event waiting for a SIEM sink (0: none waits)',
      labelNames: ['sink'],
      registers,
      collect() {
        this.reset();
        for (const [sink, r] of records())
          this.set({ sink }, r.oldestAt === undefined ? 0 : Math.max(0, (clock() - r.oldestAt) / 1000));
      },
    });
    new Counter({
      name: 'tessera_siem_lost_total',
      help: 'Events of sign-ins never written to the outbox (the store away for long, more waiting than memory holds)',
      registers,
      collect() {
        this.reset();
        this.inc(lost());
      },
    });
  }

  delivered(sink: string, count: number): void {
    this.deliveredTotal.inc({ sink }, count);
  }

  failed(sink: string): void {
    this.failedTotal.inc({ sink });
  }

  dropped(sink: string, count: number): void {
    this.droppedTotal.inc({ sink }, count);
  }
}
