import Type, { type Static } from 'typebox';

/**
 * The cluster object's security fields (GET/PUT /v1/cluster), where the product keeps
 * them: password rules and expiry, the console's session timeout, Basic on or off, who
 * may scrape the metrics, the lowest TLS version of the REST API.
 */
export const ClusterFieldsSchema = Type.Object(
  {
    /** The cluster's name; "" until set, shown as the public URL's host. */
    name: Type.String({ maxLength: 256, description: "the cluster's name (default: the host of the public URL)" }),
    password_complexity: Type.Boolean({ description: 'enforce password complexity' }),
    password_min_length: Type.Integer({ minimum: 8, maximum: 256, description: 'the shortest password allowed' }),
    /** Days; 0 = passwords never expire. */
    password_expiration_duration: Type.Integer({
      minimum: 0,
      maximum: 3650,
      description: 'days a password is valid; 0 = forever',
    }),
    cm_session_timeout_minutes: Type.Integer({
      minimum: 1,
      maximum: 1440,
      description:
        'minutes of inactivity after which the web console signs out (the server ends an idle console session too)',
    }),
    session_max_lifetime_minutes: Type.Integer({
      minimum: 5,
      maximum: 43_200,
      description:
        "Tessera's: minutes a session lives from its login, however often refresh_jwt renews it (then log in again); applies to a session's next refresh",
    }),
    control_plane_basic_authentication: Type.Boolean({
      description:
        'false: Basic credentials are refused everywhere but POST /v1/users/authorize (present a token instead)',
    }),
    metrics_auth: Type.Boolean({
      description:
        'true: GET /metrics of the management listener asks for the Basic credentials (or a token) of a user who may view metrics (admin, cluster_member, cluster_viewer); the probes stay open',
    }),
    min_control_TLS_version: Type.Union([Type.Literal('1.2'), Type.Literal('1.3')], {
      description:
        "the lowest TLS version the REST API's listener takes (the control path): for new connections, at once on this node and within a second or two on others; one already open keeps its own",
    }),
    api_key_max_lifetime_days: Type.Integer({
      minimum: 1,
      maximum: 3650,
      description:
        "Tessera's: the longest an API key may live, in days from its making (or from a change of its expires_at); keys made before a lowering keep theirs",
    }),
    mtls_certificate_authentication: Type.Boolean({
      description: 'client certificates log certificate users in (trusted CA: mtls_trusted_ca)',
    }),
    mtls_client_cert_subject_validation_type: Type.Union(
      [Type.Literal('disabled'), Type.Literal('san_cn'), Type.Literal('full_subject')],
      {
        description:
          'which client certificates are let in besides a trusted chain: any (disabled), by CN or SAN DNS name (san_cn), by full subject',
      },
    ),
    mtls_authorized_subjects: Type.Array(
      Type.Object(
        {
          CN: Type.Optional(Type.String({ maxLength: 256 })),
          OU: Type.Optional(Type.Array(Type.String({ maxLength: 256 }), { maxItems: 32 })),
          O: Type.Optional(Type.String({ maxLength: 256 })),
          C: Type.Optional(Type.String({ maxLength: 2 })),
          L: Type.Optional(Type.String({ maxLength: 256 })),
          ST: Type.Optional(Type.String({ maxLength: 256 })),
        },
        { additionalProperties: false },
      ),
      { maxItems: 1000, description: 'the subjects san_cn and full_subject let in' },
    ),
  },
  { additionalProperties: false },
);

/** The cluster settings' lockout fields (GET/PUT /v1/cluster/policy). */
export const ClusterSettingsSchema = Type.Object(
  {
    /** Failed attempts that lock a user; 0 disables lockout. */
    login_lockout_threshold: Type.Integer({
      minimum: 0,
      maximum: 1000,
      description: 'failed logins that lock a user; 0 = never',
    }),
    /** Seconds after the first failure at which the failure counter starts again. */
    login_lockout_counter_reset_after: Type.Integer({
      minimum: 1,
      maximum: 86_400,
      description: 'seconds after which failures are forgotten',
    }),
    /** Seconds a lock lasts; 0 = until an admin unlocks. */
    login_lockout_duration: Type.Integer({
      minimum: 0,
      maximum: 86_400,
      description: 'seconds a lock lasts; 0 = until an admin unlocks',
    }),
  },
  { additionalProperties: false },
);

/** The product's password hashing choices (PATCH /v1/cluster/change_password_hashing_algorithm); SHA-256 its default. */
export const PASSWORD_HASHING_ALGORITHMS = ['SHA-256', 'PBKDF2'] as const;
export type PasswordHashingAlgorithm = (typeof PASSWORD_HASHING_ALGORITHMS)[number];

/** Every security setting of the cluster, stored together; each is served where the product keeps it. */
export type Policy = Readonly<
  Static<typeof ClusterFieldsSchema> &
    Static<typeof ClusterSettingsSchema> & {
      /** The algorithm asked for last (none served: the product has no read of it); Tessera hashes with argon2id whatever it says. */
      password_hashing_algorithm: PasswordHashingAlgorithm;
      /** The cluster object's other fields as set (product-fields.ts: kept, not acted on). */
      kept_cluster: Readonly<Record<string, unknown>>;
      /** The cluster settings' other fields as set (product-fields.ts: kept, not acted on). */
      kept_policy: Readonly<Record<string, unknown>>;
    }
>;

export const DEFAULT_POLICY: Policy = Object.freeze({
  name: '',
  password_min_length: 8,
  password_complexity: false,
  password_expiration_duration: 0,
  cm_session_timeout_minutes: 15,
  session_max_lifetime_minutes: 720,
  control_plane_basic_authentication: true,
  metrics_auth: false,
  min_control_TLS_version: '1.2',
  api_key_max_lifetime_days: 366,
  mtls_certificate_authentication: false,
  mtls_client_cert_subject_validation_type: 'disabled',
  mtls_authorized_subjects: [],
  login_lockout_threshold: 5,
  login_lockout_counter_reset_after: 900,
  login_lockout_duration: 1800,
  password_hashing_algorithm: 'SHA-256',
  kept_cluster: {},
  kept_policy: {},
});

/** The cluster's name: the one set, else the host of the public URL. */
export function clusterNameOf(policy: Policy, publicUrl: string): string {
  return policy.name || new URL(publicUrl).hostname;
}
