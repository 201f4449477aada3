import type { SiemEvent } from '../siem-event.js';
import type { SinkSettings } from '../siem-settings.js';

/**
 * Where a sink's events go. `send` resolves only once the far end has them all (a collector that
 * read to the end of the connection, a webhook's 2xx, a file written and synced): until then the
 * batch stays in the outbox, and a failure sends it again later.
 */
export interface Transport {
  send(events: readonly SiemEvent[]): Promise<void>;
  close(): Promise<void>;
}

/** How long a batch may take before it counts as failed. */
export const SEND_MS = 4_000;

/** The transport a sink's settings describe (transport-of.ts, given the node's file folder). */
export type Transports = (sink: SinkSettings) => Transport;
