import type { Logger } from 'pino';
import type { RealmName } from '../auth/realms/realm.js';
import type { EventHub } from '../events.js';

/** Where a request came from; every audit line carries it. */
export interface RequestContext {
  ip: string;
  requestId: string;
}

export const CLI_CONTEXT: RequestContext = { ip: 'local', requestId: 'cli' };

export type AuditEvent =
  | 'authorize'
  /** Credentials on a request other than a login (Basic, a certificate) that were refused. */
  | 'authenticate'
  | 'refresh'
  | 'logout'
  | 'lockout'
  | 'unlock'
  | 'password_change'
  | 'password_add'
  | 'password_delete'
  | 'password_expire'
  | 'user_create'
  | 'user_update'
  | 'user_delete'
  | 'policy_update'
  | 'role_create'
  | 'role_update'
  | 'role_delete'
  | 'key_rotate'
  | 'ldap_config_update'
  | 'ldap_config_delete'
  | 'ldap_mapping_create'
  | 'ldap_mapping_update'
  | 'ldap_mapping_delete'
  | 'trusted_ca_update'
  | 'trusted_ca_delete';

export interface AuditRecord {
  event: AuditEvent;
  outcome: 'success' | 'failure';
  username?: string;
  uid?: number;
  /** Who acted, when not the user itself. */
  actor_uid?: number;
  /** An error code or a short reason; never a secret. */
  reason?: string;
  /** Names of changed fields, never their values. */
  changes?: string[];
  /** Where the user proved (or failed to prove) who it is. */
  realm?: RealmName;
  /** A client certificate's subject (RFC 2253), never the certificate itself. */
  subject?: string;
}

/**
 * One structured line per security event. Records name users and fields, never a
 * password, hash or token: the shape above has no place for one.
 */
export class AuditLog {
  constructor(
    private readonly events: EventHub,
    private readonly logger?: Logger,
  ) {}

  record(ctx: RequestContext, record: AuditRecord): void {
    this.events.emit('audited', record);
    this.logger?.info({ audit: record.event, ...record, event: undefined, ip: ctx.ip, request_id: ctx.requestId }, 'audit');
  }
}
