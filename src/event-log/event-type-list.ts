/**
 * Every type an event of the log may have (GET /v1/logs?type=, `tessera events --type`), in
 * the order of the audit events they come from, with the product's names where it has one
 * (user_created, user_updated, user_deleted, cluster_updated), and the writer's own
 * events_dropped last. No imports: the web console's Events page offers these as its Type
 * filter. event-types.ts checks at compile time that this is exactly the types of the audit
 * events (src/audit/audit-log.ts): an audit event added there is added here too.
 */
export const EVENT_TYPES = [
  'authorize',
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
  'user_created',
  'user_updated',
  'user_deleted',
  'cluster_updated',
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
  'api_certificate_update',
  'api_certificate_delete',
  'api_certificate_rotate',
  'cluster_certificate_update',
  'cluster_certificate_delete',
  'sso_update',
  'sso_delete',
  'sso_certificate_update',
  'sso_certificate_delete',
  'session_end',
  'sessions_end_all',
  'api_key_create',
  'api_key_update',
  'api_key_revoke',
  'mfa_enrol',
  'mfa_remove',
  'mfa_reset',
  'mfa_recovery_codes',
  'mfa_challenge',
  'mfa_verify',
  'siem_update',
  'siem_delete',
  'siem_sink_failed',
  'siem_sink_recovered',
  'events_dropped',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];
