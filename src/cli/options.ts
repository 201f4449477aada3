import { readFileSync } from 'node:fs';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { API_LINES, type Config, DEFAULTS, LOG_LEVELS, makeConfig, parseListen } from '../config/config.js';
import { SIGNING_ALGS, type SigningAlg } from '../tokens/signing-alg.js';

function integer(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number');
  return Number(value);
}

/** Options every command that opens the store takes. */
export function addStoreOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--data-dir <dir>', 'folder of the SQLite store and TLS files')
        .env('TESSERA_DATA_DIR')
        .default(DEFAULTS.dataDir),
    )
    .addOption(
      new Option('--database-url <url>', 'postgres://… to keep users, policy and keys in PostgreSQL instead of SQLite').env(
        'TESSERA_DATABASE_URL',
      ),
    );
}

/** Options of the commands that hash new passwords. */
export function addHashOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--argon2-memory <kib>', 'argon2id memory cost in KiB')
        .env('TESSERA_ARGON2_MEMORY_KIB')
        .argParser(integer)
        .default(DEFAULTS.argon2.memoryCost),
    )
    .addOption(
      new Option('--argon2-iterations <n>', 'argon2id time cost')
        .env('TESSERA_ARGON2_ITERATIONS')
        .argParser(integer)
        .default(DEFAULTS.argon2.timeCost),
    )
    .addOption(
      new Option('--argon2-parallelism <n>', 'argon2id lanes')
        .env('TESSERA_ARGON2_PARALLELISM')
        .argParser(integer)
        .default(DEFAULTS.argon2.parallelism),
    );
}

/** Options of the commands that use the signing keys. */
export function addKeyOptions(command: Command): Command {
  return addStoreOptions(command).addOption(
    new Option('--master-key-file <file>', 'file holding base64 of 32 random bytes that seal the signing keys at rest').env(
      'TESSERA_MASTER_KEY_FILE',
    ),
  );
}

/** Options of the commands that make signing keys. */
export function addKeyRotationOptions(command: Command): Command {
  return addKeyOptions(command).addOption(
    new Option('--key-activation-delay <seconds>', 'how long a rotated key is published before it signs (≥ JWKS cache time)')
      .env('TESSERA_KEY_ACTIVATION_DELAY')
      .argParser(integer)
      .default(DEFAULTS.keyActivationDelaySeconds),
  );
}

/** The options of `tessera serve`, each with its environment variable. */
export function addServeOptions(command: Command): Command {
  return addHashOptions(addKeyRotationOptions(command))
    .addOption(
      new Option('--redis-url <url>', 'redis://… to share lockout counters and throttling between nodes').env('TESSERA_REDIS_URL'),
    )
    .addOption(
      new Option('--redis-key-prefix <prefix>', 'prefix of Tessera\'s Redis keys')
        .env('TESSERA_REDIS_KEY_PREFIX')
        .default(DEFAULTS.redisKeyPrefix),
    )
    .addOption(
      new Option('--redis-fail-open', 'while Redis is away, count failed logins on this node alone instead of refusing logins').env(
        'TESSERA_REDIS_FAIL_OPEN',
      ),
    )
    .addOption(
      new Option('--listen <host:port>', 'address to listen on')
        .env('TESSERA_LISTEN')
        .default(`${DEFAULTS.listen.host}:${DEFAULTS.listen.port}`),
    )
    .addOption(
      new Option('--metrics-listen <host:port>', 'where GET /metrics (Prometheus) is served, apart from the API; "off" disables')
        .env('TESSERA_METRICS_LISTEN')
        .default(`${DEFAULTS.metricsListen!.host}:${DEFAULTS.metricsListen!.port}`),
    )
    .addOption(
      new Option('--api-line <line>', 'wire format of POST /v1/users/authorize: both, 7.22 (Basic header) or 7.4 (JSON body)')
        .env('TESSERA_API_LINE')
        .choices(API_LINES)
        .default(DEFAULTS.apiLine),
    )
    .addOption(new Option('--no-tls', 'plain HTTP, for use behind a TLS-terminating proxy').env('TESSERA_NO_TLS'))
    .addOption(new Option('--tls-cert <file>', 'PEM certificate (chain) to serve instead of the self-signed one').env('TESSERA_TLS_CERT'))
    .addOption(new Option('--tls-key <file>', 'PEM private key of --tls-cert').env('TESSERA_TLS_KEY'))
    .addOption(
      new Option('--public-url <url>', 'the address clients and services use to reach Tessera (default: the listen address)').env(
        'TESSERA_PUBLIC_URL',
      ),
    )
    .addOption(new Option('--issuer <iss>', 'the "iss" claim of issued tokens (default: the public URL)').env('TESSERA_ISSUER'))
    .addOption(
      new Option('--audience <aud...>', 'the "aud" claim of issued tokens, repeatable (default: the public URL)')
        .env('TESSERA_AUDIENCE')
        .argParser((value: string, previous?: string[]) => [...(previous ?? []), ...value.split(',').filter(Boolean)]),
    )
    .addOption(
      new Option('--signing-alg <alg>', 'algorithm of signing keys made from now on; existing keys keep theirs')
        .env('TESSERA_SIGNING_ALG')
        .choices(SIGNING_ALGS)
        .default(DEFAULTS.signingAlg),
    )
    .addOption(
      new Option('--clock-leeway <seconds>', 'tolerated clock skew on exp/iat, 0 to 5')
        .env('TESSERA_CLOCK_LEEWAY')
        .argParser(integer)
        .default(DEFAULTS.clockLeewaySeconds),
    )
    .addOption(
      new Option('--no-basic-auth', 'protected routes accept tokens only, not Basic credentials').env('TESSERA_NO_BASIC_AUTH'),
    )
    .addOption(
      new Option('--auth-rate-limit <n>', 'password attempts a minute from one client address before 429; 0 = off')
        .env('TESSERA_AUTH_RATE_LIMIT')
        .argParser(integer)
        .default(DEFAULTS.authRateLimit),
    )
    .addOption(
      new Option('--login-timeout <ms>', 'deadline of one login in milliseconds: past it, 503 with Retry-After')
        .env('TESSERA_LOGIN_TIMEOUT')
        .argParser(integer)
        .default(DEFAULTS.loginTimeoutMs),
    )
    .addOption(
      new Option('--login-queue-ms <ms>', 'longest expected wait for a hashing thread before a login is refused with 503')
        .env('TESSERA_LOGIN_QUEUE_MS')
        .argParser(integer)
        .default(DEFAULTS.loginQueueMs),
    )
    .addOption(
      new Option('--log-level <level>', 'log verbosity').env('TESSERA_LOG_LEVEL').choices(LOG_LEVELS).default(DEFAULTS.logLevel),
    );
}

export interface StoreOptions {
  dataDir: string;
  databaseUrl?: string;
  masterKeyFile?: string;
  keyActivationDelay?: number;
  /** Set by the commands that hash new passwords (addHashOptions); the defaults otherwise. */
  argon2Memory?: number;
  argon2Iterations?: number;
  argon2Parallelism?: number;
}

export interface ServeOptions extends StoreOptions {
  listen: string;
  metricsListen?: string;
  apiLine: Config['apiLine'];
  tls: boolean;
  tlsCert?: string;
  tlsKey?: string;
  issuer?: string;
  publicUrl?: string;
  audience?: string[];
  signingAlg: SigningAlg;
  clockLeeway: number;
  basicAuth: boolean;
  logLevel: Config['logLevel'];
  authRateLimit: number;
  loginTimeout: number;
  loginQueueMs: number;
  redisUrl?: string;
  redisKeyPrefix: string;
  redisFailOpen?: boolean;
}

export function configFromOptions(o: StoreOptions & Partial<ServeOptions>): Config {
  return makeConfig({
    dataDir: o.dataDir,
    databaseUrl: o.databaseUrl,
    masterKey: o.masterKeyFile ? readFileSync(o.masterKeyFile, 'utf8').trim() : process.env.TESSERA_MASTER_KEY || undefined,
    ...(o.keyActivationDelay !== undefined && { keyActivationDelaySeconds: o.keyActivationDelay }),
    ...(o.redisUrl !== undefined && { redisUrl: o.redisUrl }),
    ...(o.redisKeyPrefix !== undefined && { redisKeyPrefix: o.redisKeyPrefix }),
    ...(o.redisFailOpen !== undefined && { redisFailOpen: o.redisFailOpen }),
    ...(o.argon2Memory !== undefined && {
      argon2: { memoryCost: o.argon2Memory, timeCost: o.argon2Iterations!, parallelism: o.argon2Parallelism! },
    }),
    ...(o.listen !== undefined && { listen: parseListen(o.listen) }),
    ...(o.metricsListen !== undefined && { metricsListen: o.metricsListen === 'off' ? null : parseListen(o.metricsListen, '--metrics-listen') }),
    ...(o.apiLine !== undefined && { apiLine: o.apiLine }),
    ...(o.tls !== undefined && { tls: { enabled: o.tls, certFile: o.tlsCert, keyFile: o.tlsKey } }),
    ...(o.issuer !== undefined && { issuer: o.issuer }),
    ...(o.publicUrl !== undefined && { publicUrl: o.publicUrl }),
    ...(o.audience !== undefined && { audiences: o.audience }),
    ...(o.signingAlg !== undefined && { signingAlg: o.signingAlg }),
    ...(o.clockLeeway !== undefined && { clockLeewaySeconds: o.clockLeeway }),
    ...(o.basicAuth !== undefined && { basicAuthOnProtectedRoutes: o.basicAuth }),
    ...(o.logLevel !== undefined && { logLevel: o.logLevel }),
    ...(o.authRateLimit !== undefined && { authRateLimit: o.authRateLimit }),
    ...(o.loginTimeout !== undefined && { loginTimeoutMs: o.loginTimeout }),
    ...(o.loginQueueMs !== undefined && { loginQueueMs: o.loginQueueMs }),
  });
}
