import type { AuditRecord, RequestContext } from '../audit/audit-log.js';

/** An event as GET /v1/logs answers it: the product's `time`, `type`, `severity`, and the record's fields. */
export interface LoggedEvent {
  /** ISO 8601, to the second, as the product's. */
  time: string;
  type: string;
  severity: 'INFO' | 'WARNING';
  [field: string]: unknown;
}

export interface EventQuery {
  /** ISO 8601: from (inclusive) and until (inclusive). */
  stime?: string;
  etime?: string;
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
  type?: string;
  /** Events about this user or by it. */
  uid?: number;
}

/** A row to append: when, and what the audit record said. */
export interface EventRow {
  time: number;
  type: string;
  severity: 'INFO' | 'WARNING';
  uid: number | null;
  actorUid: number | null;
  fields: Record<string, unknown>;
}

/** Where events are kept: appended in batches, read by time, pruned by age and count. */
export interface EventLogStore {
  append(rows: EventRow[]): Promise<void>;
  query(query: EventQuery): Promise<LoggedEvent[]>;
  /** Removes events before `before` (ms) and all but the newest `keep`. */
  prune(before: number, keep: number): Promise<void>;
}

/** The product's names where it has one (alerts-events.md: user_created, user_updated, user_deleted); Tessera's audit names otherwise. */
const PRODUCT_TYPES: Partial<Record<AuditRecord['event'], string>> = { user_create: 'user_created', user_update: 'user_updated', user_delete: 'user_deleted' };

/** The row an audit record becomes: a refusal is a WARNING, anything else INFO; where it came from is kept (ip, request id). */
export function rowOf(record: AuditRecord, ctx: RequestContext | undefined, time: number): EventRow {
  const { event, ...fields } = record;
  return {
    time,
    type: PRODUCT_TYPES[event] ?? event,
    severity: record.outcome === 'failure' ? 'WARNING' : 'INFO',
    uid: record.uid ?? null,
    actorUid: record.actor_uid ?? null,
    fields: { ...fields, ...(ctx && { ip: ctx.ip, request_id: ctx.requestId }) },
  };
}
