import type { AuditEvent } from '../audit/audit-log.js';
import { type EventType, EVENT_TYPES as LISTED } from './event-type-list.js';

/**
 * The product's names where it has one for the same event (clusters/logging/alerts-events.md:
 * `cluster_updated` "Cluster settings updated", `user_created`, `user_updated`, `user_deleted`);
 * the audit line's name otherwise — the product names no event for roles, passwords, LDAP, SSO,
 * certificates, keys or logins. The JSON audit lines keep their own names (`policy_update`,
 * `user_create`): a rule written on them goes on matching. A name changed here is a migration
 * of the rows kept under the old one (0011 moved `policy_update`).
 */
const RENAMED = {
  user_create: 'user_created',
  user_update: 'user_updated',
  user_delete: 'user_deleted',
  /** PUT /v1/cluster and PUT /v1/cluster/policy: both the cluster's settings. */
  policy_update: 'cluster_updated',
} as const satisfies Partial<Record<AuditEvent, string>>;
const PRODUCT_TYPES: Partial<Record<AuditEvent, string>> = RENAMED;

/** The event log's type of an audit event. */
export const eventTypeOf = (event: AuditEvent): string => PRODUCT_TYPES[event] ?? event;

/** What the event log's writer says of itself: events it could not keep. */
export const EVENTS_DROPPED = 'events_dropped';

/** The types the audit events make, as the type system sees them. */
type MadeTypes =
  | Exclude<AuditEvent, keyof typeof RENAMED>
  | (typeof RENAMED)[keyof typeof RENAMED]
  | typeof EVENTS_DROPPED;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// The list the console offers (event-type-list.ts, which imports nothing) is these, no more and no fewer.
true satisfies Same<EventType, MadeTypes>;

/** Every type an event of the log may have (what GET /v1/logs?type= and `tessera events --type` filter by). */
export const EVENT_TYPES: readonly string[] = LISTED;

/**
 * Why `type` filters nothing, or undefined when it is a type of the log. An audit line's name
 * that the log writes otherwise (also what the log wrote before: `policy_update`) is refused
 * naming the log's, never taken for it: a filter answers exactly what it names.
 */
export function eventTypeRefusal(type: string): string | undefined {
  if (EVENT_TYPES.includes(type)) return undefined;
  const renamed = Object.hasOwn(PRODUCT_TYPES, type) ? PRODUCT_TYPES[type as AuditEvent] : undefined;
  const near = renamed ?? EVENT_TYPES.find((t) => t.startsWith(type) || type.startsWith(t));
  return `no event has the type "${type}"${renamed ? ": the audit line's name, the event log uses the product's" : ''}${near ? ` (did you mean ${near}?)` : ''}; the types: ${EVENT_TYPES.join(', ')}`;
}
