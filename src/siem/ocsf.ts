import { isIP } from 'node:net';
import type { SiemEvent } from './siem-event.js';

/**
 * An event as OCSF 1.1.0 has it, for a SIEM that reads that schema (Security Lake, Splunk's
 * OCSF add-on, Sentinel's ASIM parsers). Four classes, each event in the nearest:
 *
 * - Authentication (3002): logins, logouts and a session ended, refreshes, the second step.
 *   A refresh and the MFA steps are Other (99), not Logon: a Logon counts a new session, and
 *   a successful second step is followed by its own `authorize`; 1.1 has no Preauth (1.2 has),
 *   and its Service Ticket activities are Kerberos's.
 * - Account Change (3001): what was done to one user account, its passwords, keys and factors.
 *   A password set by someone else is a Reset; an expiry or a password removed sets none, so
 *   Other; 1.1 has no Unlock (1.8 has).
 * - Entity Management (3004): changes to what is not an account (settings, roles, LDAP, SSO,
 *   certificates, keys, the issuer, every session): create, update or delete of an entity.
 *   A Tessera role is a set of rights, not an IAM principal, so not Account Change.
 * - Base Event (0): the product's own health (events dropped, a SIEM sink failed or back);
 *   1.1 has no class for a logging pipeline.
 *
 * A field a class has no place for goes to `unmapped`, under its Tessera name, with `type`.
 */
const OCSF_VERSION = '1.1.0';
const OTHER = 99;

type ClassKey = 'authentication' | 'account_change' | 'entity_management' | 'base_event';

const IAM = { categoryUid: 3, categoryName: 'Identity & Access Management' };
const CLASSES: Record<
  ClassKey,
  { uid: number; name: string; categoryUid: number; categoryName: string; activities: Record<number, string> }
> = {
  authentication: { uid: 3002, name: 'Authentication', ...IAM, activities: { 1: 'Logon', 2: 'Logoff' } },
  account_change: {
    uid: 3001,
    name: 'Account Change',
    ...IAM,
    activities: {
      1: 'Create',
      3: 'Password Change',
      4: 'Password Reset',
      6: 'Delete',
      9: 'Lock',
      10: 'MFA Factor Enable',
      11: 'MFA Factor Disable',
    },
  },
  entity_management: {
    uid: 3004,
    name: 'Entity Management',
    ...IAM,
    activities: { 1: 'Create', 3: 'Update', 4: 'Delete' },
  },
  base_event: { uid: 0, name: 'Base Event', categoryUid: 0, categoryName: 'Uncategorized', activities: {} },
};

interface Activity {
  cls: ClassKey;
  id: number;
  /** The activity_name of an Other (99): OCSF's caption otherwise. */
  name?: string;
  /** Entity Management's entity type. */
  entity?: string;
}

const auth = (id: number, name?: string): Activity => ({ cls: 'authentication', id, name });
const account = (id: number, name?: string): Activity => ({ cls: 'account_change', id, name });
const entity = (id: 1 | 3 | 4, type: string): Activity => ({ cls: 'entity_management', id, entity: type });
const health = (name: string): Activity => ({ cls: 'base_event', id: OTHER, name });

/** Set by the user itself, a Password Change; by anyone else (an admin, the CLI), a Reset. */
const byWhom = (e: SiemEvent): Activity => account(e.actor_uid !== undefined && e.actor_uid === e.uid ? 3 : 4);

const ACTIVITIES: Record<string, Activity | ((e: SiemEvent) => Activity)> = {
  authorize: auth(1),
  authenticate: auth(1),
  refresh: auth(OTHER, 'Refresh'),
  logout: auth(2),
  session_end: auth(2),
  mfa_challenge: auth(OTHER, 'MFA Challenge'),
  mfa_verify: auth(OTHER, 'MFA Verify'),
  user_created: account(1),
  user_updated: account(OTHER, 'Update'),
  user_deleted: account(6),
  password_change: byWhom,
  password_add: byWhom,
  password_delete: account(OTHER, 'Password Delete'),
  password_expire: account(OTHER, 'Password Expire'),
  lockout: account(9),
  unlock: account(OTHER, 'Unlock'),
  api_key_create: account(OTHER, 'API Key Create'),
  api_key_update: account(OTHER, 'API Key Update'),
  api_key_revoke: account(OTHER, 'API Key Revoke'),
  mfa_enrol: account(10),
  mfa_remove: account(11),
  mfa_reset: account(11),
  mfa_recovery_codes: account(OTHER, 'MFA Recovery Codes Renew'),
  cluster_updated: entity(3, 'Cluster Settings'),
  password_hashing_algorithm: entity(3, 'Cluster Settings'),
  key_rotate: entity(1, 'Signing Key'), // a new key staged: `target` names it
  issuer_move: entity(3, 'Issuer'),
  sessions_end_all: entity(4, 'Sessions'), // no one user: Authentication would need one
  events_dropped: health('Events Dropped'),
  siem_sink_failed: health('SIEM Sink Failed'),
  siem_sink_recovered: health('SIEM Sink Recovered'),
  ...Object.fromEntries(
    Object.entries({
      role: 'Role',
      ldap_config: 'LDAP Configuration',
      ldap_mapping: 'LDAP Mapping',
      trusted_ca: 'Trusted CA',
      api_certificate: 'Certificate',
      cluster_certificate: 'Certificate',
      sso: 'SSO Configuration',
      sso_certificate: 'SSO Certificate',
      siem: 'Auditing Configuration',
    }).flatMap(([object, type]) =>
      // A name no event has (role_rotate) is never asked for.
      (['create', 'update', 'rotate', 'delete'] as const).map((verb) => [
        `${object}_${verb}`,
        entity(verb === 'create' ? 1 : verb === 'delete' ? 4 : 3, type),
      ]),
    ),
  ),
};

/** How each realm proves who a user is, as OCSF's auth_protocol_id names it (only SSO's SAML has an id). */
const PROTOCOLS: Record<string, [id: number, name: string]> = {
  local: [OTHER, 'Password'],
  ldap: [OTHER, 'LDAP'],
  certificate: [OTHER, 'TLS Client Certificate'],
  sso: [5, 'SAML'],
  api_key: [OTHER, 'API Key'],
};

/** Audit records lost: an operator must act, where a refused login alone asks nothing of anyone. */
const LOSS = new Set(['events_dropped', 'siem_sink_failed']);
const SEVERITIES: Record<number, string> = { 1: 'Informational', 2: 'Low', 3: 'Medium' };
/** Not a request: these ids name every CLI line or every start alike, and would correlate unrelated events. */
const NOT_REQUESTS = new Set(['cli', 'start']);

export function ocsfOf(event: SiemEvent, product: { version: string }): Record<string, unknown> {
  const found = own(ACTIVITIES, event.type);
  const activity = typeof found === 'function' ? found(event) : (found ?? health(event.type));
  const cls = CLASSES[activity.cls];
  const caption = cls.activities[activity.id] ?? 'Other';
  // What a Tessera field became in OCSF; the rest, and `type`, go to unmapped.
  const placed = new Set(['id', 'time', 'severity', 'outcome', 'reason']);
  const place = (...keys: string[]) => {
    for (const key of keys) placed.add(key);
  };

  const severityId = event.severity === 'WARNING' ? (LOSS.has(event.type) ? 3 : 2) : 1;
  const failed = event.outcome ? event.outcome === 'failure' : event.severity === 'WARNING';
  const requestId = text(event.request_id);
  const correlated = requestId !== undefined && !NOT_REQUESTS.has(requestId);
  // Folded repeats (the event log's `count`) are OCSF's occurrence count; events_dropped's is how many were lost.
  const count = typeof event.count === 'number' && event.type !== 'events_dropped' ? event.count : undefined;
  if (correlated) place('request_id');
  if (count !== undefined) place('count');

  const out: Record<string, unknown> = {
    class_uid: cls.uid,
    class_name: cls.name,
    category_uid: cls.categoryUid,
    category_name: cls.categoryName,
    activity_id: activity.id,
    activity_name: activity.name ?? caption,
    type_uid: cls.uid * 100 + activity.id,
    type_name: `${cls.name}: ${caption}`,
    severity_id: severityId,
    severity: SEVERITIES[severityId],
    time: Date.parse(event.time),
    count,
    status_id: failed ? 2 : 1,
    status: failed ? 'Failure' : 'Success',
    status_detail: text(event.reason),
    metadata: {
      version: OCSF_VERSION,
      uid: event.id,
      product: { name: 'Tessera', vendor_name: 'Tessera', version: product.version },
      original_time: event.time,
      correlation_uid: correlated ? requestId : undefined,
    },
  };
  // Base Event has neither actor nor device (the IAM classes have both, from the host profile).
  if (activity.cls !== 'base_event') {
    const actor = userOf(event.actor_uid, event.actor);
    out.actor = actor && { user: actor };
    // Its name, not hostname: a node's name may carry its process id.
    out.device = text(event.node) && { type_id: 1, type: 'Server', name: event.node };
    place('actor_uid', 'actor', 'node');
  }
  if (activity.cls === 'authentication' || activity.cls === 'account_change') {
    // A refused certificate names no user: its subject is who it claimed to be (and stays in unmapped).
    const subject = text(event.subject);
    out.user = userOf(event.uid, event.username) ?? (subject && { name: subject });
    place('uid', 'username');
    const ip = text(event.ip);
    if (ip && isIP(ip)) {
      out.src_endpoint = { ip };
      place('ip');
    }
  }
  if (activity.cls === 'authentication') {
    const protocol = own(PROTOCOLS, text(event.realm));
    if (protocol) [out.auth_protocol_id, out.auth_protocol] = protocol;
    // Known used for a second step or a login that names its factor; known unused for any other login that passed.
    if (event.mfa !== undefined || event.type.startsWith('mfa_')) out.is_mfa = true;
    else if (event.type === 'authorize' && !failed) out.is_mfa = false;
    out.service = { name: 'Tessera' };
  }
  if (activity.entity) out.entity = { type: activity.entity, name: text(event.target) ?? activity.entity };

  const unmapped = Object.fromEntries(
    Object.entries(event).filter(([k, v]) => !placed.has(k) && v !== undefined && v !== null),
  );
  return pruned({ ...out, unmapped }) as Record<string, unknown>;
}

/** A table's own entry: a type named `constructor` is no activity. */
function own<T>(table: Record<string, T>, key: string | undefined): T | undefined {
  return key !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** OCSF's user: uid a string, at least one of uid and name. */
function userOf(uid: unknown, name: unknown): Record<string, string> | undefined {
  const user = pruned({
    uid: typeof uid === 'number' || typeof uid === 'string' ? String(uid) : undefined,
    name: text(name),
  }) as Record<string, string>;
  return Object.keys(user).length > 0 ? user : undefined;
}

/** A receiver may read a key with an undefined value as present: none leaves here. */
function pruned(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(pruned);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, pruned(v)]),
  );
}
