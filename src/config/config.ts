import Type, { type Static } from 'typebox';
import Value from 'typebox/value';

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
  dataDir: Type.String({ minLength: 1 }),
  apiLine: Type.Union([Type.Literal('both'), Type.Literal('7.22'), Type.Literal('7.4')]),
  tls: Type.Object({
    enabled: Type.Boolean(),
    certFile: Type.Optional(Type.String({ minLength: 1 })),
    keyFile: Type.Optional(Type.String({ minLength: 1 })),
  }),
  issuer: Type.String({ minLength: 1 }),
  clockLeewaySeconds: Type.Integer({ minimum: 0, maximum: 5 }),
  basicAuthOnProtectedRoutes: Type.Boolean(),
  argon2: Argon2Params,
  bodyLimitBytes: Type.Integer({ minimum: 256, maximum: 1_048_576 }),
  /** Password attempts a minute from one client address; 0 turns throttling off. */
  authRateLimit: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  logLevel: Type.Union(LOG_LEVELS.map((l) => Type.Literal(l)) as [ReturnType<typeof Type.Literal<(typeof LOG_LEVELS)[number]>>]),
});

export type Config = Readonly<Static<typeof ConfigSchema>>;
export type Argon2Params = Static<typeof Argon2Params>;

/** OWASP Password Storage Cheat Sheet, argon2id: m=19 MiB, t=2, p=1. */
export const OWASP_ARGON2: Argon2Params = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export const DEFAULTS: Config = {
  listen: { host: '127.0.0.1', port: 9443 },
  dataDir: './data',
  apiLine: 'both',
  tls: { enabled: true },
  issuer: 'tessera',
  clockLeewaySeconds: 5,
  basicAuthOnProtectedRoutes: true,
  argon2: OWASP_ARGON2,
  bodyLimitBytes: 8192,
  authRateLimit: 300,
  logLevel: 'info',
};

export class ConfigError extends Error {}

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] };

/** Merges overrides onto the defaults, validates the result and freezes it. */
export function makeConfig(overrides: DeepPartial<Config> = {}): Config {
  const merged = {
    ...DEFAULTS,
    ...overrides,
    listen: { ...DEFAULTS.listen, ...overrides.listen },
    tls: { ...DEFAULTS.tls, ...overrides.tls },
    argon2: { ...DEFAULTS.argon2, ...overrides.argon2 },
  };
  if (!Value.Check(ConfigSchema, merged)) {
    const problems = [...Value.Errors(ConfigSchema, merged)].map(
      (e) => `${e.instancePath || '/'} ${e.message}`,
    );
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  if (Boolean(merged.tls.certFile) !== Boolean(merged.tls.keyFile)) {
    throw new ConfigError('--tls-cert and --tls-key must be given together');
  }
  return deepFreeze(merged as Config);
}

/** "host:port", "[::1]:port" or ":port". */
export function parseListen(value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(value.trim());
  const port = Number(match?.[3]);
  if (!match || port > 65535) {
    throw new ConfigError(`--listen must look like HOST:PORT, got "${value}"`);
  }
  return { host: match[1] ?? (match[2] || '0.0.0.0'), port };
}

function deepFreeze<T>(value: T): T {
  for (const v of Object.values(value as object)) if (v && typeof v === 'object') deepFreeze(v);
  return Object.freeze(value);
}
