import { readFileSync } from 'node:fs';
import Type, { type Static, type TSchema } from 'typebox';

export const API_LINES = ['both', '7.22', '7.4'] as const;
export type ApiLine = (typeof API_LINES)[number];
/** The algorithms a signing key may have (tokens/signing-alg.ts makes their keys). */
export const SIGNING_ALGS = ['ES256', 'RS256', 'EdDSA'] as const;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Which commands take a setting: every command that opens the store takes `store`, and so on. */
export type SettingGroup = 'store' | 'hash' | 'keys' | 'rotation' | 'serve';

export class ConfigError extends Error {}

/**
 * One setting of Tessera: its flag, its environment variable, its value's schema and
 * default, how its text is read, and its help. The CLI's options, the environment, the
 * config schema, the defaults and the messages all come from this table.
 */
export interface Setting<T extends TSchema = TSchema, Required extends boolean = boolean> {
  /** As commander reads it: "--listen <host:port>", "--no-tls". */
  flag: string;
  env: string;
  help: string;
  schema: T;
  /** The value when neither flag nor variable is given; none: the setting is optional. */
  default: Required extends true ? Static<T> : undefined;
  /** The flag's or variable's text as the value (throws ConfigError or commander's InvalidArgumentError). */
  parse?: (text: string, previous: Static<T>) => Static<T>;
  /** The default as --help shows it, where it is not the value's own text. */
  shown?: string;
  choices?: readonly string[];
  /** Said after the flag in a message about a bad value ("a postgres:// URL"). */
  shape?: string;
  /** A variable that holds the value itself, for secrets that must not be a flag (ps shows flags). */
  valueEnv?: string;
  group: SettingGroup;
}

const setting = <T extends TSchema>(s: Omit<Setting<T, true>, 'default'> & { default: Static<T> }): Setting<T, true> =>
  s;
const optional = <T extends TSchema>(s: Omit<Setting<T, false>, 'default'>): Setting<T, false> => ({
  ...s,
  default: undefined,
});

export function wholeNumber(text: string): number {
  if (!/^\d+$/.test(text.trim())) throw new ConfigError(`must be a whole number, got "${text}"`);
  return Number(text);
}

/** "host:port", "[::1]:port" or ":port". */
export function parseListen(value: string, flag = '--listen'): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(value.trim());
  const port = Number(match?.[3]);
  if (!match || port > 65535) {
    throw new ConfigError(`${flag} must look like HOST:PORT, got "${value}"`);
  }
  return { host: match[1] ?? (match[2] || '0.0.0.0'), port };
}

const Address = Type.Object({
  host: Type.String({ minLength: 1 }),
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
});
const int = (minimum: number, maximum: number) => Type.Integer({ minimum, maximum });

/** Every setting, by its place in the config ("argon2.memoryCost": config.argon2.memoryCost). */
export const SETTINGS = {
  dataDir: setting({
    flag: '--data-dir <dir>',
    env: 'TESSERA_DATA_DIR',
    help: 'folder of the SQLite store and TLS files',
    schema: Type.String({ minLength: 1 }),
    default: './data',
    group: 'store',
  }),
  databaseUrl: optional({
    flag: '--database-url <url>',
    env: 'TESSERA_DATABASE_URL',
    help: 'postgres://… to keep users, policy and keys in PostgreSQL instead of SQLite',
    schema: Type.String({ pattern: '^postgres(ql)?://' }),
    shape: 'a postgres:// URL,',
    group: 'store',
  }),
  'argon2.memoryCost': setting({
    flag: '--argon2-memory <kib>',
    env: 'TESSERA_ARGON2_MEMORY_KIB',
    help: 'argon2id memory cost in KiB',
    schema: int(1024, 4_194_304),
    default: 19_456, // OWASP Password Storage Cheat Sheet, argon2id: m=19 MiB, t=2, p=1
    parse: wholeNumber,
    group: 'hash',
  }),
  'argon2.timeCost': setting({
    flag: '--argon2-iterations <n>',
    env: 'TESSERA_ARGON2_ITERATIONS',
    help: 'argon2id time cost',
    schema: int(1, 100),
    default: 2,
    parse: wholeNumber,
    group: 'hash',
  }),
  'argon2.parallelism': setting({
    flag: '--argon2-parallelism <n>',
    env: 'TESSERA_ARGON2_PARALLELISM',
    help: 'argon2id lanes',
    schema: int(1, 16),
    default: 1,
    parse: wholeNumber,
    group: 'hash',
  }),
  masterKey: optional({
    flag: '--master-key-file <file>',
    env: 'TESSERA_MASTER_KEY_FILE',
    valueEnv: 'TESSERA_MASTER_KEY',
    help: 'file holding base64 of 32 random bytes that seal the signing keys at rest (or the key itself in TESSERA_MASTER_KEY)',
    schema: Type.String(),
    parse: (file) => readFileSync(file, 'utf8').trim(),
    group: 'keys',
  }),
  keyActivationDelaySeconds: setting({
    flag: '--key-activation-delay <seconds>',
    env: 'TESSERA_KEY_ACTIVATION_DELAY',
    help: 'how long a rotated key is published before it signs (≥ JWKS cache time)',
    schema: int(0, 86_400),
    default: 300,
    parse: wholeNumber,
    group: 'rotation',
  }),
  redisUrl: optional({
    flag: '--redis-url <url>',
    env: 'TESSERA_REDIS_URL',
    help: 'redis://… to share lockout counters and throttling between nodes',
    schema: Type.String({ pattern: '^rediss?://' }),
    shape: 'a redis:// URL,',
    group: 'serve',
  }),
  redisKeyPrefix: setting({
    flag: '--redis-key-prefix <prefix>',
    env: 'TESSERA_REDIS_KEY_PREFIX',
    help: "prefix of Tessera's Redis keys",
    schema: Type.String({ minLength: 1, maxLength: 64 }),
    default: 'tessera:',
    group: 'serve',
  }),
  redisFailOpen: setting({
    flag: '--redis-fail-open',
    env: 'TESSERA_REDIS_FAIL_OPEN',
    help: 'while Redis is away, count failed logins on this node alone instead of refusing logins',
    schema: Type.Boolean(),
    default: false,
    group: 'serve',
  }),
  listen: setting({
    flag: '--listen <host:port>',
    env: 'TESSERA_LISTEN',
    help: 'address to listen on',
    schema: Address,
    default: { host: '127.0.0.1', port: 9443 },
    parse: (text) => parseListen(text),
    shown: '127.0.0.1:9443',
    group: 'serve',
  }),
  metricsListen: setting({
    flag: '--metrics-listen <host:port>',
    env: 'TESSERA_METRICS_LISTEN',
    help: 'the management listener, apart from the API: GET /metrics (Prometheus), /healthz and /readyz; "off" disables',
    schema: Type.Union([Address, Type.Null()]),
    default: { host: '127.0.0.1', port: 9464 },
    parse: (text) => (text === 'off' ? null : parseListen(text, '--metrics-listen')),
    shown: '127.0.0.1:9464',
    group: 'serve',
  }),
  apiLine: setting({
    flag: '--api-line <line>',
    env: 'TESSERA_API_LINE',
    help: 'wire format of POST /v1/users/authorize: both, 7.22 (Basic header) or 7.4 (JSON body)',
    schema: Type.Enum(API_LINES),
    default: 'both',
    choices: API_LINES,
    group: 'serve',
  }),
  'tls.enabled': setting({
    flag: '--no-tls',
    env: 'TESSERA_NO_TLS',
    help: 'plain HTTP, for use behind a TLS-terminating proxy',
    schema: Type.Boolean(),
    default: true,
    group: 'serve',
  }),
  'tls.certFile': optional({
    flag: '--tls-cert <file>',
    env: 'TESSERA_TLS_CERT',
    help: 'PEM certificate (chain) to serve instead of the self-signed one',
    schema: Type.String({ minLength: 1 }),
    group: 'serve',
  }),
  'tls.keyFile': optional({
    flag: '--tls-key <file>',
    env: 'TESSERA_TLS_KEY',
    help: 'PEM private key of --tls-cert',
    schema: Type.String({ minLength: 1 }),
    group: 'serve',
  }),
  'mtls.clientCaFile': optional({
    flag: '--client-ca <file>',
    env: 'TESSERA_CLIENT_CA',
    help: 'PEM CA(s) that client certificates must chain to, set at the first start when the store has none (then: PUT /v1/cluster/certificates, mtls_trusted_ca)',
    schema: Type.String({ minLength: 1 }),
    group: 'serve',
  }),
  'mtls.certHeader': optional({
    flag: '--client-cert-header <name>',
    env: 'TESSERA_CLIENT_CERT_HEADER',
    help: "behind a TLS-terminating proxy (--no-tls): the header that carries the client certificate (PEM, URL-encoded as nginx's $ssl_client_escaped_cert), taken only from --trusted-proxy addresses",
    schema: Type.String({ pattern: '^[A-Za-z0-9-]{1,64}$' }),
    shape: 'a header name,',
    group: 'serve',
  }),
  'mtls.trustedProxies': setting({
    flag: '--trusted-proxy <address...>',
    env: 'TESSERA_TRUSTED_PROXY',
    help: "addresses or CIDRs of the proxies in front (--no-tls) whose X-Forwarded-For (and --client-cert-header) is believed: the client's address is then the one they forward, for throttling, the event log and sessions; nobody's by default; repeatable or comma-separated",
    schema: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 64 }),
    default: [],
    parse: (text, previous) => [
      ...previous,
      ...text
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean),
    ],
    shown: 'none',
    group: 'serve',
  }),
  publicUrl: optional({
    flag: '--public-url <url>',
    env: 'TESSERA_PUBLIC_URL',
    help: 'the address clients and services use to reach Tessera (default: the listen address)',
    schema: Type.String({ pattern: '^https?://[^/?#]+(/[^?#]*)?$' }),
    shape: 'an http(s):// URL without query,',
    group: 'serve',
  }),
  issuer: optional({
    flag: '--issuer <iss>',
    env: 'TESSERA_ISSUER',
    help: 'the "iss" claim of issued tokens (default: the public URL)',
    schema: Type.String({ minLength: 1 }),
    group: 'serve',
  }),
  audiences: setting({
    flag: '--audience <aud...>',
    env: 'TESSERA_AUDIENCE',
    help: 'the "aud" claim of issued tokens, repeatable or comma-separated',
    schema: Type.Array(Type.String({ minLength: 1 }), { maxItems: 16 }),
    default: [],
    parse: (text, previous) => [...previous, ...text.split(',').filter(Boolean)],
    shown: 'the public URL',
    group: 'serve',
  }),
  signingAlg: setting({
    flag: '--signing-alg <alg>',
    env: 'TESSERA_SIGNING_ALG',
    help: 'algorithm of signing keys made from now on; existing keys keep theirs',
    schema: Type.Enum(SIGNING_ALGS),
    default: 'ES256',
    choices: SIGNING_ALGS,
    group: 'serve',
  }),
  clockLeewaySeconds: setting({
    flag: '--clock-leeway <seconds>',
    env: 'TESSERA_CLOCK_LEEWAY',
    help: 'tolerated clock skew on exp/iat, 0 to 5',
    schema: int(0, 5),
    default: 5,
    parse: wholeNumber,
    group: 'serve',
  }),
  bodyLimitBytes: setting({
    flag: '--body-limit <bytes>',
    env: 'TESSERA_BODY_LIMIT',
    help: 'largest request body; a larger one is answered 413',
    schema: int(256, 1_048_576),
    default: 8192,
    parse: wholeNumber,
    group: 'serve',
  }),
  authRateLimit: setting({
    flag: '--auth-rate-limit <n>',
    env: 'TESSERA_AUTH_RATE_LIMIT',
    help: 'password attempts a minute from one client address before 429; 0 = off',
    schema: int(0, 1_000_000),
    default: 300,
    parse: wholeNumber,
    group: 'serve',
  }),
  eventLogDays: setting({
    flag: '--event-log-days <d>',
    env: 'TESSERA_EVENT_LOG_DAYS',
    help: 'days the event log (GET /v1/logs, tessera events) keeps an event; 0 = no event log (the JSON audit lines stay)',
    schema: int(0, 3650),
    default: 90,
    parse: wholeNumber,
    group: 'serve',
  }),
  eventLogMax: setting({
    flag: '--event-log-max <n>',
    env: 'TESSERA_EVENT_LOG_MAX',
    help: 'events the event log keeps at most, the newest: a flood of failed logins never grows the store past it',
    schema: int(1000, 100_000_000),
    default: 1_000_000,
    parse: wholeNumber,
    group: 'serve',
  }),
  siemFileDir: optional({
    flag: '--siem-file-dir <dir>',
    env: 'TESSERA_SIEM_FILE_DIR',
    help: "the folder SIEM file sinks write in (a sink's path is in it): default <data-dir>/siem",
    schema: Type.String({ minLength: 1 }),
    group: 'serve',
  }),
  authCacheSeconds: setting({
    flag: '--auth-cache-seconds <s>',
    env: 'TESSERA_AUTH_CACHE_SECONDS',
    help: 'how long a verified password is remembered (as a keyed hash, in memory) so that repeated Basic calls skip the hash; 0 = off',
    schema: int(0, 3600),
    default: 300,
    parse: wholeNumber,
    group: 'serve',
  }),
  loginTimeoutMs: setting({
    flag: '--login-timeout <ms>',
    env: 'TESSERA_LOGIN_TIMEOUT',
    help: 'deadline of one login in milliseconds: past it, 503 with Retry-After',
    schema: int(100, 60_000),
    default: 3000,
    parse: wholeNumber,
    group: 'serve',
  }),
  loginQueueMs: setting({
    flag: '--login-queue-ms <ms>',
    env: 'TESSERA_LOGIN_QUEUE_MS',
    help: 'longest expected wait for a hashing thread before a login is refused with 503',
    schema: int(0, 60_000),
    default: 2000,
    parse: wholeNumber,
    group: 'serve',
  }),
  hashThreads: optional({
    flag: '--hash-threads <n>',
    env: 'TESSERA_HASH_THREADS',
    help: "password hashes and checks run at once, on threads below the event loop's priority (default: one a core, and one more)",
    schema: int(1, 256),
    parse: wholeNumber,
    group: 'serve',
  }),
  logLevel: setting({
    flag: '--log-level <level>',
    env: 'TESSERA_LOG_LEVEL',
    help: 'log verbosity',
    schema: Type.Enum(LOG_LEVELS),
    default: 'info',
    choices: LOG_LEVELS,
    group: 'serve',
  }),
};

type Settings = typeof SETTINGS;
type Value<S> =
  S extends Setting<infer T, infer Required> ? (Required extends true ? Static<T> : Static<T> | undefined) : never;
type Head<K> = K extends `${infer A}.${string}` ? A : K;

/** The config as the settings make it: "a.b" settings are the fields of an object `a`. */
export type ConfigShape = {
  readonly [A in Head<keyof Settings>]: A extends keyof Settings
    ? Value<Settings[A]>
    : { readonly [K in keyof Settings as K extends `${A}.${infer B}` ? B : never]: Value<Settings[K]> };
};

export const SETTING_KEYS = Object.keys(SETTINGS) as (keyof Settings)[];

/** The config's schema, from the settings' schemas (optional where a setting has no default). */
export function configSchema(): TSchema {
  const top: Record<string, TSchema> = {};
  const nested: Record<string, Record<string, TSchema>> = {};
  for (const key of SETTING_KEYS) {
    const s: Setting = SETTINGS[key];
    const schema = s.default === undefined ? Type.Optional(s.schema) : s.schema;
    const [head, field] = key.split('.') as [string, string?];
    if (field) (nested[head] ??= {})[field] = schema;
    else top[head] = schema;
  }
  for (const [head, fields] of Object.entries(nested)) top[head] = Type.Object(fields);
  return Type.Object(top);
}

/** The defaults of every setting that has one, as a config. */
export function defaults(): ConfigShape {
  // biome-ignore lint/suspicious/noExplicitAny: filled key by key; its shape is the schema's
  const config: Record<string, any> = {};
  for (const key of SETTING_KEYS) {
    const value = (SETTINGS[key] as Setting).default;
    if (value !== undefined) setAt(config, key, value);
  }
  return config as ConfigShape;
}

/** Sets "a.b" of an object. */
// biome-ignore lint/suspicious/noExplicitAny: a config under construction
export function setAt(target: Record<string, any>, key: string, value: unknown): void {
  const [head, field] = key.split('.') as [string, string?];
  if (field) (target[head] ??= {})[field] = value;
  else target[head] = value;
}

/** The flag's name and its variable, as a message names a setting: "--listen (TESSERA_LISTEN)". */
export function spelled(s: Setting): string {
  const name = s.flag.split(' ')[0]!;
  return `${name} (${s.env})${s.shape ? `, ${s.shape}` : ''}`;
}
