import type { AuditRecord, RequestContext } from '../audit/audit-log.js';
import { eventTypeOf } from './event-types.js';

/** An event as GET /v1/logs answers it: the product's `time`, `type`, `severity`, and the record's fields. */
export interface LoggedEvent {
  /** ISO 8601, to the second, as the product's. */
  time: string;
  type: string;
  severity: 'INFO' | 'WARNING';
  [field: string]: unknown;
}

export interface EventQuery {
  /** ISO 8601 with its zone (Z), as toISOString() writes it: from (inclusive) and until (inclusive). */
  stime?: string;
  etime?: string;
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
  type?: string;
  /** Events about this user or by it. */
  uid?: number;
  /**
   * Events about or by the account of this name or email now (any spelling: usernameKey), by its
   * uid (indexed). Not the names events recorded: matching those reads every record of the range
   * (a deleted user's events and a refused name's are found by type and time instead).
   */
  user?: string;
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
  /**
   * Removes events before `before` (ms) and keeps `keep` at most: warnings at most `keep / 2`
   * and routine successes (isNoise: logins and the like, and what users did to themselves) at
   * most `keep / 4`, the newest of each; changes fill the rest. A flood of refusals, of logins
   * or of a user's changes to itself never pushes out the record of changes made to others.
   */
  prune(before: number, keep: number): Promise<void>;
}

/** Successes that every login, refresh and logout makes: kept apart from changes, and folded when they repeat. */
export const ROUTINE_TYPES: readonly string[] = ['authorize', 'authenticate', 'refresh', 'logout'];

/** What any user may do to itself as often as it likes (its alert settings, its password, its sessions): routine too when it does. */
export const SELF_SERVICE_TYPES: readonly string[] = [
  'user_updated',
  'password_change',
  'password_add',
  'password_delete',
  'session_end',
];

/** A row that a flood makes many of alike: a refusal, a routine success, or what a user did to itself. */
export const isNoise = (row: Pick<EventRow, 'type' | 'severity' | 'uid' | 'actorUid'>): boolean =>
  row.severity === 'WARNING' ||
  ROUTINE_TYPES.includes(row.type) ||
  (row.actorUid !== null && row.actorUid === row.uid && SELF_SERVICE_TYPES.includes(row.type));

/** A field's text at most this long: what a request typed (a name, an identity provider's message) never makes a large row. */
const MAX_TEXT = 256;

/** Text as the log keeps it: control and bidirectional characters shown as \u escapes, cut to MAX_TEXT. */
export function boundedText(text: string): string {
  // eslint-disable-next-line no-control-regex
  const shown = text.replace(
    /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return shown.length > MAX_TEXT ? `${shown.slice(0, MAX_TEXT)}…` : shown;
}

const bounded = (value: unknown): unknown =>
  typeof value === 'string' ? boundedText(value) : Array.isArray(value) ? value.slice(0, 32).map(bounded) : value;

/** Each record's row, made once for all who keep it (the event log, the SIEM sinks' outbox, which copies its fields at once). */
const rows = new WeakMap<AuditRecord, EventRow>();

/** The row an audit record becomes: a refusal is a WARNING, anything else INFO; where it came from is kept (ip, request id); every text bounded. */
export function rowOf(record: AuditRecord, ctx: RequestContext | undefined, time: number): EventRow {
  let row = rows.get(record);
  if (!row) rows.set(record, (row = makeRow(record, ctx, time)));
  return row;
}

function makeRow(record: AuditRecord, ctx: RequestContext | undefined, time: number): EventRow {
  const { event, ...fields } = record;
  const all: Record<string, unknown> = { ...fields, ...(ctx && { ip: ctx.ip, request_id: ctx.requestId }) };
  return {
    time,
    type: eventTypeOf(event),
    severity: record.outcome === 'failure' ? 'WARNING' : 'INFO',
    uid: record.uid ?? null,
    actorUid: record.actor_uid ?? null,
    fields: Object.fromEntries(Object.entries(all).map(([k, v]) => [k, bounded(v)])),
  };
}

/** What a caller who may not see users (view_all_users_info) reads of an event: what happened, not to or by whom. */
const NOT_ABOUT_PEOPLE = new Set([
  'time',
  'type',
  'severity',
  'outcome',
  'target',
  'changes',
  'realm',
  'reason',
  'count',
]);
/** A reason of Tessera's own words names nobody; one with an email an identity provider gave, a DN, a subject or a URL may. */
const NAMES_NOBODY = /^[a-z0-9_ :,.()'-]+$/;
export function withoutPeople(event: LoggedEvent): LoggedEvent {
  return Object.fromEntries(
    Object.entries(event).filter(
      ([k, v]) => NOT_ABOUT_PEOPLE.has(k) && (k !== 'reason' || NAMES_NOBODY.test(String(v))),
    ),
  ) as LoggedEvent;
}
