import { hostname } from 'node:os';
import Type, { type Static } from 'typebox';
import Value from 'typebox/value';
import { SIGNING_ALGS } from '../tokens/signing-alg.js';

export const API_LINES = ['both', '7.22', '7.4'] as const;
export type ApiLine = (typeof API_LINES)[number];
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const Argon2Params = Type.Object({
  memoryCost: Type.Integer({ minimum: 1024, maximum: 4_194_304, description: 'KiB' }),
  timeCost: Type.Integer({ minimum: 1, maximum: 100 }),
  parallelism: Type.Integer({ minimum: 1, maximum: 16 }),
});

export const ConfigSchema = Type.Object({
  listen: Type.Object({
    host: Type.String({ minLength: 1 }),
    port: Type.Integer({ minimum: 0, maximum: 65535 }),
  }),
  /** Where GET /metrics is served, apart from the API; null: not at all. */
  metricsListen: Type.Union([
    Type.Object({ host: Type.String({ minLength: 1 }), port: Type.Integer({ minimum: 0, maximum: 65535 }) }),
    Type.Null(),
  ]),
  dataDir: Type.String({ minLength: 1 }),
  apiLine: Type.Union([Type.Literal('both'), Type.Literal('7.22'), Type.Literal('7.4')]),
  tls: Type.Object({
    enabled: Type.Boolean(),
    certFile: Type.Optional(Type.String({ minLength: 1 })),
    keyFile: Type.Optional(Type.String({ minLength: 1 })),
  }),
  /** The address clients and services use to reach Tessera; from `listen` when unset. */
  publicUrl: Type.Optional(Type.String({ pattern: '^https?://[^/?#]+(/[^?#]*)?$' })),
  /** The "iss" of issued tokens; the public URL when unset. */
  issuer: Type.Optional(Type.String({ minLength: 1 })),
  /** The "aud" of issued tokens; the public URL when empty. */
  audiences: Type.Array(Type.String({ minLength: 1 }), { maxItems: 16 }),
  /** The algorithm of signing keys made from now on; existing keys keep theirs. */
  signingAlg: Type.Enum(SIGNING_ALGS),
  clockLeewaySeconds: Type.Integer({ minimum: 0, maximum: 5 }),
  basicAuthOnProtectedRoutes: Type.Boolean(),
  argon2: Argon2Params,
  bodyLimitBytes: Type.Integer({ minimum: 256, maximum: 1_048_576 }),
  /** postgres://… selects PostgreSQL; without it the SQLite file in dataDir is the store. */
  databaseUrl: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  /** redis://… moves lockout counters and throttling to Redis, shared by every node. */
  redisUrl: Type.Optional(Type.String({ pattern: '^rediss?://' })),
  redisKeyPrefix: Type.String({ minLength: 1, maxLength: 64 }),
  /** When Redis is unreachable: false refuses logins (503), true counts on this node alone. */
  redisFailOpen: Type.Boolean(),
  /** Base64 of 32 random bytes that encrypt the private signing keys at rest. */
  masterKey: Type.Optional(Type.String()),
  /** Seconds a new signing key is published before it signs: at least the JWKS cache time. */
  keyActivationDelaySeconds: Type.Integer({ minimum: 0, maximum: 86_400 }),
  /** Password attempts a minute from one client address; 0 turns throttling off. */
  authRateLimit: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  /** One deadline a login: every store, Redis and queue wait inside it gets the time left. */
  loginTimeoutMs: Type.Integer({ minimum: 100, maximum: 60_000 }),
  /** A login waits for a hashing thread only while its expected wait stays under this. */
  loginQueueMs: Type.Integer({ minimum: 0, maximum: 60_000 }),
  logLevel: Type.Union(LOG_LEVELS.map((l) => Type.Literal(l)) as [ReturnType<typeof Type.Literal<(typeof LOG_LEVELS)[number]>>]),
});

export type Config = Readonly<Static<typeof ConfigSchema>>;
export type Argon2Params = Static<typeof Argon2Params>;

/** OWASP Password Storage Cheat Sheet, argon2id: m=19 MiB, t=2, p=1. */
export const OWASP_ARGON2: Argon2Params = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export const DEFAULTS: Config = {
  listen: { host: '127.0.0.1', port: 9443 },
  metricsListen: { host: '127.0.0.1', port: 9464 },
  dataDir: './data',
  apiLine: 'both',
  tls: { enabled: true },
  audiences: [],
  signingAlg: 'ES256',
  clockLeewaySeconds: 5,
  basicAuthOnProtectedRoutes: true,
  argon2: OWASP_ARGON2,
  bodyLimitBytes: 8192,
  authRateLimit: 300,
  loginTimeoutMs: 3000,
  loginQueueMs: 2000,
  redisKeyPrefix: 'tessera:',
  redisFailOpen: false,
  keyActivationDelaySeconds: 300,
  logLevel: 'info',
};

export class ConfigError extends Error {}

/** Each setting as the user spells it (flag and variable), for messages. */
const FLAGS: Record<string, string> = {
  '/listen/host': '--listen (TESSERA_LISTEN)',
  '/listen/port': '--listen (TESSERA_LISTEN) port',
  '/dataDir': '--data-dir (TESSERA_DATA_DIR)',
  '/metricsListen': '--metrics-listen (TESSERA_METRICS_LISTEN)',
  '/databaseUrl': '--database-url (TESSERA_DATABASE_URL), a postgres:// URL,',
  '/redisUrl': '--redis-url (TESSERA_REDIS_URL), a redis:// URL,',
  '/redisKeyPrefix': '--redis-key-prefix (TESSERA_REDIS_KEY_PREFIX)',
  '/issuer': '--issuer (TESSERA_ISSUER)',
  '/publicUrl': '--public-url (TESSERA_PUBLIC_URL), an http(s):// URL without query,',
  '/audiences': '--audience (TESSERA_AUDIENCE)',
  '/signingAlg': '--signing-alg (TESSERA_SIGNING_ALG)',
  '/clockLeewaySeconds': '--clock-leeway (TESSERA_CLOCK_LEEWAY)',
  '/argon2/memoryCost': '--argon2-memory (TESSERA_ARGON2_MEMORY_KIB)',
  '/argon2/timeCost': '--argon2-iterations (TESSERA_ARGON2_ITERATIONS)',
  '/argon2/parallelism': '--argon2-parallelism (TESSERA_ARGON2_PARALLELISM)',
  '/keyActivationDelaySeconds': '--key-activation-delay (TESSERA_KEY_ACTIVATION_DELAY)',
  '/authRateLimit': '--auth-rate-limit (TESSERA_AUTH_RATE_LIMIT)',
  '/loginTimeoutMs': '--login-timeout (TESSERA_LOGIN_TIMEOUT)',
  '/loginQueueMs': '--login-queue-ms (TESSERA_LOGIN_QUEUE_MS)',
};

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] };

/** Merges overrides onto the defaults, validates the result and freezes it. */
export function makeConfig(given: DeepPartial<Config> = {}): Config {
  const overrides = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as DeepPartial<Config>;
  const merged = {
    ...DEFAULTS,
    ...overrides,
    listen: { ...DEFAULTS.listen, ...overrides.listen },
    tls: { ...DEFAULTS.tls, ...overrides.tls },
    argon2: { ...DEFAULTS.argon2, ...overrides.argon2 },
  };
  if (!Value.Check(ConfigSchema, merged)) {
    const problems = [...Value.Errors(ConfigSchema, merged)].map((e) => `${FLAGS[e.instancePath] ?? e.instancePath} ${e.message}`);
    throw new ConfigError([...new Set(problems)].join('; '));
  }
  if (merged.masterKey !== undefined && masterKeyBytes(merged.masterKey).length !== 32) {
    throw new ConfigError('the master key must be base64 of 32 random bytes (openssl rand -base64 32)');
  }
  if (Boolean(merged.tls.certFile) !== Boolean(merged.tls.keyFile)) {
    throw new ConfigError('--tls-cert and --tls-key must be given together');
  }
  return deepFreeze(merged as Config);
}

/**
 * Where clients and services reach Tessera: --public-url, or the listen address with its
 * scheme (this machine's name when it listens on every address). No trailing slash.
 */
export function publicUrlOf(config: Config): string {
  if (config.publicUrl) return config.publicUrl.replace(/\/+$/, '');
  const { host, port } = config.listen;
  const name = ['0.0.0.0', '::', ''].includes(host) ? hostname() : host.includes(':') ? `[${host}]` : host;
  return `${config.tls.enabled ? 'https' : 'http'}://${name}:${port}`;
}

/** The "iss" of Tessera's tokens. */
export function issuerOf(config: Config): string {
  return config.issuer ?? publicUrlOf(config);
}

/** The "aud" of Tessera's tokens. */
export function audiencesOf(config: Config): string[] {
  return config.audiences.length > 0 ? [...config.audiences] : [publicUrlOf(config)];
}

export function masterKeyBytes(base64: string): Buffer {
  return /^[A-Za-z0-9+/_-]+={0,2}$/.test(base64.trim()) ? Buffer.from(base64.trim(), 'base64') : Buffer.alloc(0);
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

function deepFreeze<T>(value: T): T {
  for (const v of Object.values(value as object)) if (v && typeof v === 'object') deepFreeze(v);
  return Object.freeze(value);
}
