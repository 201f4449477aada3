import type { LoggedEvent } from '../event-log/event-log.js';

/**
 * One event as it leaves for a SIEM: the event log's event (GET /v1/logs: `time`, `type`,
 * `severity`, and the audit record's fields — `outcome`, `actor_uid`, `actor`, `uid`,
 * `username`, `target`, `reason`, `changes`, `realm`, `subject`, `mfa`, `ip`, `request_id`,
 * `count`), with a stable `id` (a receiver drops repeats by it: delivery is at least once) and
 * the `node` that recorded it. Never a secret: the audit record has no place for one.
 */
export interface SiemEvent extends LoggedEvent {
  /** A UUID, the same on every delivery of this event to every sink. */
  id: string;
  /** The node that recorded it (its host name and process id, or --node-name). */
  node: string;
  /** ISO 8601 in UTC to the millisecond (the event log shows it to the second). */
  time: string;
}
