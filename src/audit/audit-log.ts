import type { Logger } from 'pino';
import type { RealmName } from '../access/realm-name.js';
import type { EventHub } from '../events.js';
import { whenSettled } from '../unit-of-work.js';

declare module '../events.js' {
  interface TesseraEvents {
    /** A line of the audit trail, written here and kept in the event log. */
    audited: [record: AuditRecord, ctx?: RequestContext];
  }
}

/** Where a request came from; every audit line carries it. */
export interface RequestContext {
  ip: string;
  requestId: string;
  /** The client's User-Agent (a session shows it), bounded. */
  userAgent?: string;
}

export const CLI_CONTEXT: RequestContext = { ip: 'local', requestId: 'cli' };
/** What a node does as it starts, of its own accord (a single node moving its store's issuer). */
export const START_CONTEXT: RequestContext = { ip: 'local', requestId: 'start' };

export const AUDIT_EVENTS = [
  'authorize',
  /** Credentials on a request other than a login (Basic, a certificate) that were refused. */
  'authenticate',
  'refresh',
  'logout',
  'lockout',
  'unlock',
  'password_change',
  'password_add',
  'password_delete',
  'password_expire',
  'password_hashing_algorithm',
  'user_create',
  'user_update',
  'user_delete',
  'policy_update',
  'role_create',
  'role_update',
  'role_delete',
  'key_rotate',
  'issuer_move',
  'ldap_config_update',
  'ldap_config_delete',
  'ldap_mapping_create',
  'ldap_mapping_update',
  'ldap_mapping_delete',
  'trusted_ca_update',
  'trusted_ca_delete',
  /** The REST API's own TLS certificate (the product's `api`): set, made anew by a rotation (or not: `changes` empty, `reason` says why). */
  'api_certificate_update',
  /** Written while DELETE /v1/cluster/certificates/api was taken (now 403: a required certificate); kept so that a filter still finds those lines. */
  'api_certificate_delete',
  'api_certificate_rotate',
  /** The product's other certificates that Tessera keeps without using them (`proxy`, `cm`, …; `target` names it): set, removed. */
  'cluster_certificate_update',
  'cluster_certificate_delete',
  'sso_update',
  'sso_delete',
  'sso_certificate_update',
  'sso_certificate_delete',
  /** One session, or a user's every session, ended (its tokens refused). */
  'session_end',
  /** Every session of the cluster ended. */
  'sessions_end_all',
  /** A user's API key made, changed (`changes`), revoked (its sessions ended); `target` names it ("api_key <key_id>"). */
  'api_key_create',
  'api_key_update',
  'api_key_revoke',
  /** A second factor added (`target`: "mfa_factor <factor_id> (<type>)"), removed by its user, or removed by another (a reset: one factor or all). */
  'mfa_enrol',
  'mfa_remove',
  'mfa_reset',
  /** A user's recovery codes made anew (never the codes). */
  'mfa_recovery_codes',
  /** A password proven at a login whose user has a second factor: the second step asked. */
  'mfa_challenge',
  /** The second step of a login: its factor (`mfa`) accepted, or refused with why. */
  'mfa_verify',
  /** The control plane's auditing (its SIEM sinks, mode and bound) set or removed; `changes` names the fields, never a secret. */
  'siem_update',
  'siem_delete',
  /** A SIEM sink stopped taking events (`reason`), or took them again (`target`: "siem_sink <name>"). */
  'siem_sink_failed',
  'siem_sink_recovered',
] as const;
export type AuditEvent = (typeof AUDIT_EVENTS)[number];

/**
 * One shape for every event: who acted (`actor_uid`, `actor`: the user whose credentials
 * made the request; absent where nobody proved who they are — a refused login, a lockout —
 * and for the local CLI, whose lines say `"ip":"local"`) apart from what the event is about:
 * a user (`uid`, `username`) or another object (`target`).
 */
export interface AuditRecord {
  event: AuditEvent;
  outcome: 'success' | 'failure';
  actor_uid?: number;
  /** The actor's username. */
  actor?: string;
  /** The user the event is about. */
  uid?: number;
  username?: string;
  /** What the event is about when it is not a user: "policy", "role 3", "ldap_mapping 2 (ops)", "ldap_config", "trusted_ca", "signing_key <kid>", "issuer". */
  target?: string;
  /** An error code or a short reason; never a secret. */
  reason?: string;
  /** Names of changed fields, never their values. */
  changes?: string[];
  /** Where the user proved (or failed to prove) who it is. */
  realm?: RealmName;
  /** A client certificate's subject (RFC 2253), never the certificate itself. */
  subject?: string;
  /** The second factor a login's second step was taken with. */
  mfa?: 'totp' | 'webauthn' | 'recovery_code';
}

/**
 * One structured line per security event. Records name users and fields, never a
 * password, hash or token: the shape above has no place for one.
 */
/** The actor's fields of a record. */
export function actorOf(actor: { uid: number; username: string } | null): Pick<AuditRecord, 'actor_uid' | 'actor'> {
  return actor ? { actor_uid: actor.uid, actor: actor.username } : {};
}

export class AuditLog {
  constructor(
    private readonly events: EventHub,
    private readonly logger?: Logger,
  ) {}

  record(ctx: RequestContext, record: AuditRecord): void {
    this.events.emit('audited', record, ctx);
    // A change's line once it is committed; a refusal's whatever became of the change it refused.
    whenSettled(
      () =>
        this.logger?.info(
          { audit: record.event, ...record, event: undefined, ip: ctx.ip, request_id: ctx.requestId },
          'audit',
        ),
      record.outcome === 'failure',
    );
  }
}
