import { createSecureContext } from 'node:tls';
import { isDeepStrictEqual } from 'node:util';
import Type, { type Static, type TSchema } from 'typebox';
import { InvalidRequestError } from '../errors.js';
import { StringEnum } from '../schema/string-enum.js';
import { ClusterFieldsSchema, ClusterSettingsSchema } from './policy.js';

/**
 * The fields of the product's cluster object (objects/cluster) and cluster settings
 * (objects/cluster_settings) that are about databases, shards, alerts, e-mail and the
 * product's own servers, none of which Tessera has. They are kept as given — checked against
 * the reference's type, stored, answered by GET with the reference's default until set — so
 * that a client that reads the object, changes a field and writes it back, or sets the
 * docs' examples, works unchanged; nothing in Tessera acts on them. Read-only ones
 * (`readOnly`) are answered and may be sent back as answered; another value is refused.
 *
 * No `default` keyword here: the request schemas would fill it into every PUT (Fastify's
 * validator uses defaults); the defaults are in `KEPT_DEFAULTS`.
 */

interface Kept {
  schema: TSchema;
  default?: unknown;
  /** A check beyond the schema: what is wrong with a value, or undefined. */
  check?: (value: unknown) => string | undefined;
}

const kept = (schema: TSchema, byDefault?: unknown, check?: Kept['check']): Kept => ({
  schema,
  default: byDefault,
  ...(check && { check }),
});
const bool = (byDefault?: boolean) => kept(Type.Boolean(), byDefault);
const int = (byDefault?: number, minimum?: number, maximum?: number) =>
  kept(
    Type.Integer({ ...(minimum !== undefined && { minimum }), ...(maximum !== undefined && { maximum }) }),
    byDefault,
  );
const port = () => int(undefined, 1024, 65_535);
const text = (byDefault?: string, maxLength = 4096) => kept(Type.String({ maxLength }), byDefault);
const oneOf = <const V extends readonly string[]>(values: V, byDefault?: V[number]) =>
  kept(StringEnum(values), byDefault);
const readOnly = (k: Kept): Kept => ({ ...k, schema: { ...k.schema, readOnly: true } });
const strings = (maxItems = 1000) => kept(Type.Array(Type.String({ maxLength: 256 }), { maxItems }));
const object = () => kept(Type.Record(Type.String({ maxLength: 128 }), Type.Unknown(), { maxProperties: 1000 }));

/** The product's alerts (objects/cluster/alert_settings): each on or off, some with a threshold. */
const ALERTS_WITH_THRESHOLD = [
  'cluster_certs_about_to_expire',
  'cluster_license_about_to_expire',
  'cluster_users_count_approaches_limit',
  'node_cpu_utilization',
  'node_ephemeral_storage',
  'node_free_flash',
  'node_internal_certs_about_to_expire',
  'node_memory',
  'node_net_throughput',
  'node_persistent_storage',
];
const ALERTS = [
  'cluster_even_node_count',
  'cluster_flash_overcommit',
  'cluster_inconsistent_rl_sw',
  'cluster_internal_bdb',
  'cluster_multiple_nodes_down',
  'cluster_node_joined',
  'cluster_node_remove_abort_completed',
  'cluster_node_remove_abort_failed',
  'cluster_node_remove_completed',
  'cluster_node_remove_failed',
  'cluster_ocsp_query_failed',
  'cluster_ocsp_status_revoked',
  'cluster_ram_overcommit',
  'cluster_too_few_nodes_for_replication',
  'node_aof_slow_disk_io',
  'node_checks_error',
  'node_failed',
  'node_insufficient_disk_aofrw',
];
const WithThreshold = Type.Object(
  { enabled: Type.Boolean(), threshold: Type.Optional(Type.String({ maxLength: 64 })) },
  { additionalProperties: false },
);
const AlertSettings = Type.Object(
  Object.fromEntries([
    ...ALERTS.map((name) => [name, Type.Optional(Type.Boolean())]),
    ...ALERTS_WITH_THRESHOLD.map((name) => [name, Type.Optional(WithThreshold)]),
  ]),
  { additionalProperties: false },
);

/** The control plane's ciphers as OpenSSL reads them (Node's TLS): one it cannot read would take the listener down. */
function cipherListProblem(value: unknown): string | undefined {
  try {
    createSecureContext({ ciphers: String(value) });
    return undefined;
  } catch {
    return `control_cipher_suites: no cipher of "${String(value).slice(0, 64)}" is known to OpenSSL (an OpenSSL cipher list: "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-AES128-GCM-SHA256")`;
  }
}
const TLS = ['1.2', '1.3'] as const;
const ON_OFF_AUTO = ['enabled', 'disabled', 'auto'] as const;
const PROXY_POLICY = ['single', 'all-master-shards', 'all-nodes'] as const;

/** The cluster object's fields Tessera keeps without acting on them (GET/PUT /v1/cluster). */
export const KEPT_CLUSTER_FIELDS: Record<string, Kept> = {
  /** When the store was made (its first migration), to the second. */
  created_time: readOnly(text(undefined, 32)),
  alert_settings: kept(AlertSettings, {}),
  allow_modules_upload: bool(false),
  availability_lag_tolerance_ms: int(100, 0),
  bigstore_driver: oneOf(['speedb', 'rocksdb']),
  client_maint_notifications: bool(false),
  cluster_ssh_public_key: text(),
  cm_port: port(),
  cnm_http_max_threads_per_worker: int(10, 1),
  cnm_http_port: port(),
  cnm_http_workers: int(1, 1),
  cnm_https_port: port(),
  /** The API listener's ciphers (TLS 1.2; TLS 1.3's are OpenSSL's own): applied to new connections, on every node. */
  control_cipher_suites: kept(Type.String({ minLength: 1, maxLength: 4096 }), undefined, cipherListProblem),
  control_cipher_suites_tls_1_3: readOnly(text()),
  crdb_coordinator_port: int(9081, 1024, 65_535),
  crdt_rest_client_retries: int(undefined, 0),
  crdt_rest_client_timeout: int(undefined, 0),
  crdt_supported_featureset_version: readOnly(int()),
  crdt_supported_featureset_version_map: readOnly(object()),
  crdt_supported_module_featureset_version_map: readOnly(object()),
  crdt_supported_protocol_versions: readOnly(strings()),
  crdt_supported_protocol_versions_map: readOnly(object()),
  data_cipher_list: text(),
  data_cipher_suites_tls_1_3: text(),
  debuginfo_path: text(),
  default_non_sharded_proxy_policy: readOnly(oneOf(PROXY_POLICY, 'single')),
  default_sharded_proxy_policy: readOnly(oneOf(PROXY_POLICY, 'all-master-shards')),
  disconnect_clients_on_password_removal: oneOf(ON_OFF_AUTO, 'auto'),
  dmc_external_authentication: bool(false),
  dmc_external_cba_authentication: bool(false),
  dmc_external_entraid_authentication: bool(false),
  dmc_external_ldap_authentication: bool(false),
  email_alerts: bool(false),
  email_from: text('', 256),
  /** Whether private keys are sealed at rest: answered as whether a master key is set (TESSERA_MASTER_KEY), read-only. */
  encrypt_pkeys: readOnly(bool()),
  envoy_admin_port: port(),
  envoy_max_downstream_connections: int(undefined, 100, 2048),
  envoy_mgmt_server_port: port(),
  gossip_envoy_admin_port: port(),
  handle_redirects: bool(false),
  http_support: bool(false),
  logrotate_settings: kept(
    Type.Object(
      {
        maxage: Type.Optional(Type.Integer({ minimum: 0 })),
        maxsize: Type.Optional(Type.String({ maxLength: 32 })),
        rotate: Type.Optional(Type.Integer({ minimum: 0 })),
      },
      { additionalProperties: false },
    ),
    { maxage: 7, maxsize: '200M', rotate: 10 },
  ),
  mask_bdb_credentials: bool(false),
  min_data_TLS_version: oneOf(TLS),
  min_sentinel_TLS_version: oneOf(TLS),
  multi_commands_opt: oneOf(['disabled', 'batch', 'force_disabled'], 'disabled'),
  options_method_forbidden: bool(false),
  /** The product's proxy certificate: GET /v1/cluster/certificates answers the one kept (proxy_cert); here read-only, absent. */
  proxy_certificate: readOnly(text()),
  proxy_max_ccs_disconnection_time: int(undefined, 0),
  rack_aware: readOnly(bool(false)),
  reserved_ports: strings(),
  replica_sconns_on_demand: oneOf(ON_OFF_AUTO, 'auto'),
  robust_crdt_syncer: bool(false),
  /** A file path (the reference: "Filepath to the PEM-encoded CA certificate"): one line. */
  s3_ca_cert: kept(Type.String({ maxLength: 1024, pattern: '^[^\\r\\n]*$' })),
  s3_url: text(),
  sentinel_cipher_suites: strings(100),
  sentinel_cipher_suites_tls_1_3: text(),
  sentinel_tls_mode: oneOf(['allowed', 'disabled', 'required']),
  slave_ha: readOnly(bool(false)),
  slave_ha_bdb_cooldown_period: readOnly(int(86_400)),
  slave_ha_cooldown_period: readOnly(int(3600)),
  slave_ha_grace_period: readOnly(int(900)),
  slowlog_in_sanitized_support: bool(),
  smtp_host: text('', 256),
  smtp_password: text('', 256),
  smtp_port: int(25, 1, 65_535),
  smtp_tls_mode: oneOf(['none', 'starttls', 'tls'], 'none'),
  smtp_use_tls: bool(false),
  smtp_username: text('', 256),
  state_machine_smart_client_handoffs_delay_ms: int(2000, 0, 10_000),
  /** As proxy_certificate: the one kept is syncer_cert at GET /v1/cluster/certificates. */
  syncer_certificate: readOnly(text()),
  upgrade_mode: bool(false),
  use_external_ipv6: bool(true),
  use_ipv6: bool(true),
  wait_command: readOnly(bool(true)),
};

/** The cluster settings' fields Tessera keeps without acting on them (GET/PUT /v1/cluster/policy). */
export const KEPT_POLICY_FIELDS: Record<string, Kept> = {
  acl_pubsub_default: oneOf(['resetchannels', 'allchannels']),
  auto_recovery: bool(false),
  automatic_node_offload: bool(true),
  bigstore_migrate_node_threshold: int(undefined, 0),
  bigstore_migrate_node_threshold_p: int(undefined, 0),
  bigstore_provision_node_threshold: int(undefined, 0),
  bigstore_provision_node_threshold_p: int(undefined, 0),
  data_internode_encryption: bool(),
  db_conns_auditing: bool(false),
  default_bigstore_version: kept(Type.Union([Type.Literal(1), Type.Literal(2)]), 1),
  default_concurrent_restore_actions: int(undefined, 0),
  default_fork_evict_ram: bool(),
  default_non_sharded_proxy_policy: oneOf(PROXY_POLICY, 'single'),
  default_oss_cluster: bool(false),
  default_oss_sharding: bool(false),
  default_provisioned_redis_version: text(undefined, 32),
  default_recovery_wait_time: int(-1, -1),
  default_sharded_proxy_policy: oneOf(PROXY_POLICY, 'single'),
  default_shards_placement: oneOf(['dense', 'sparse'], 'dense'),
  default_tracking_table_max_keys_policy: int(1_000_000, 0),
  diskless_repl: oneOf(['yes', 'no'], 'yes'),
  endpoint_rebind_propagation_grace_time: int(undefined, 0),
  evict_node_use_free_memory: bool(),
  expose_hostnames_for_all_suffixes: bool(false),
  failure_detection_sensitivity: oneOf(['high', 'low']),
  filter_node_wd_health_metrics: bool(true),
  hide_user_data_from_log: bool(false),
  master_healthcheck_api_auth: bool(true),
  max_redis_forks: int(0, 0),
  max_saved_events_per_type: int(undefined, 0),
  max_simultaneous_backups: int(4, 0),
  max_slave_full_syncs: int(0, 0),
  metrics_exporter_expose_bdb_name: bool(false),
  oss_cluster_api_preferred_endpoint_type: oneOf(['ip', 'hostname'], 'ip'),
  oss_cluster_api_preferred_ip_type: oneOf(['internal', 'external'], 'internal'),
  parallel_shards_upgrade: int(undefined, 0),
  persistence_cleanup_grace_time: int(undefined, 0),
  persistence_cleanup_scan_interval: text(undefined, 256),
  persistent_node_removal: bool(),
  rack_aware: bool(),
  redis_migrate_node_threshold: int(undefined, 0),
  redis_migrate_node_threshold_p: int(undefined, 0),
  redis_provision_node_threshold: int(undefined, 0),
  redis_provision_node_threshold_p: int(undefined, 0),
  redis_upgrade_policy: oneOf(['major', 'latest'], 'major'),
  repl_diskless: bool(true),
  resp3_default: bool(true),
  shards_overbooking: bool(),
  show_internals: bool(),
  show_metrics_during_state_machine: bool(),
  slave_ha: bool(),
  slave_ha_bdb_cooldown_period: int(undefined, 0),
  slave_ha_cooldown_period: int(undefined, 0),
  slave_ha_grace_period: int(undefined, 0),
  slow_log_max_len: int(1024, 0),
  use_librdb: bool(),
  witness_disk_update_frequency_divisor: int(3, 1),
};

/** How a kept secret is answered when set; sent back as such, it stays as it was. */
export const MASKED = '***';

/**
 * The secret among them: Tessera sends no mail, so the SMTP password itself is never stored
 * (a secret nothing uses is only a liability); whether one was set is, and GET answers it
 * as MASKED ("" when none).
 */
const SECRETS: ReadonlySet<string> = new Set(['smtp_password']);

/** Each field's schema, optional, for a request or an answer. */
export function keptProperties(fields: Record<string, Kept>): Record<string, TSchema> {
  return Object.fromEntries(Object.entries(fields).map(([name, k]) => [name, Type.Optional(k.schema)]));
}

/** The kept fields as GET answers them: those set, else the reference's default (none: absent). */
export function keptView(
  fields: Record<string, Kept>,
  stored: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  for (const [name, k] of Object.entries(fields)) {
    const value = stored[name] ?? k.default;
    if (value !== undefined) view[name] = value;
  }
  return view;
}

/**
 * A request body split into Tessera's own fields and the kept ones, these merged into what is
 * stored (an object field — alert_settings — by its keys, as the docs' example changes two
 * alerts and leaves the others). A field sent as `current` (GET's answer) has it is no change
 * (a read back and written whole writes nothing); a read-only one with another value is
 * refused, named.
 */
export function splitKept(
  fields: Record<string, Kept>,
  body: Record<string, unknown>,
  current: Record<string, unknown>,
  stored: Readonly<Record<string, unknown>>,
): { own: Record<string, unknown>; kept: Record<string, unknown>; changed: string[] } {
  const own: Record<string, unknown> = {};
  const kept: Record<string, unknown> = { ...stored };
  const changed: string[] = [];
  for (const [name, value] of Object.entries(body)) {
    const field = fields[name];
    if (isDeepStrictEqual(value, current[name])) continue; // as GET answers it: no change
    if (!field) {
      own[name] = value;
      changed.push(name);
    } else if ((field.schema as { readOnly?: boolean }).readOnly) {
      throw new InvalidRequestError(`${name} is read-only: send it as GET answers it, or leave it out`);
    } else if (holdsPrivateKey(value)) {
      // A kept field is answered to every reader of the cluster: no key ever goes in one.
      throw new InvalidRequestError(
        `${name} holds a private key: it would be answered to every reader (a certificate's key goes with PUT /v1/cluster/certificates, never shown)`,
      );
    } else if (SECRETS.has(name)) {
      if (value === MASKED) continue;
      kept[name] = value === '' ? '' : MASKED;
      changed.push(name);
    } else {
      const problem = field.check?.(value);
      if (problem) throw new InvalidRequestError(problem);
      kept[name] = isRecord(value) && isRecord(stored[name]) ? { ...stored[name], ...value } : value;
      changed.push(name);
    }
  }
  return { own, kept, changed };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;
/** Whether a value (a string, or one inside an array or object) holds a PEM private key. */
function holdsPrivateKey(value: unknown): boolean {
  if (typeof value === 'string') return PRIVATE_KEY.test(value);
  if (Array.isArray(value)) return value.some(holdsPrivateKey);
  return isRecord(value) && Object.values(value).some(holdsPrivateKey);
}

/** The product's cluster object as Tessera answers and takes it: its own fields and the kept ones. */
export const ClusterObjectSchema = Type.Object(
  { ...ClusterFieldsSchema.properties, ...keptProperties(KEPT_CLUSTER_FIELDS) },
  { additionalProperties: false },
);

/** The product's cluster settings object (/v1/cluster/policy): the lockout fields and the kept ones. */
export const ClusterSettingsObjectSchema = Type.Object(
  { ...ClusterSettingsSchema.properties, ...keptProperties(KEPT_POLICY_FIELDS) },
  { additionalProperties: false },
);

/** GET /v1/cluster's answer: Tessera's fields, and the kept ones by name. */
export type ClusterObject = Static<typeof ClusterFieldsSchema> & Record<string, unknown>;
/** GET /v1/cluster/policy's answer: the lockout fields, and the kept ones by name. */
export type SettingsObject = Static<typeof ClusterSettingsSchema> & Record<string, unknown>;
