import { availableParallelism } from 'node:os';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { AuditLog } from './audit/audit-log.js';
import { AuthService } from './auth/auth-service.js';
import { VerifiedCredentials } from './auth/verified-credentials.js';
import { settleIssuer } from './tokens/store-issuer.js';
import { type Clock, systemClock } from './clock.js';
import { audiencesOf, type Config, ConfigError, issuerOf, masterKeyBytes } from './config/config.js';
import { within } from './deadline.js';
import { Metrics } from './metrics/metrics.js';
import { Admission } from './guard/admission.js';
import { AdmittedHasher } from './guard/admitted-hasher.js';
import { ClientThrottle } from './guard/client-throttle.js';
import { Lockout } from './guard/lockout.js';
import { type LoginGuard, MemoryLoginGuard } from './guard/login-guard.js';
import { RedisLoginGuard } from './guard/redis-login-guard.js';
import { ResilientLoginGuard } from './guard/resilient-login-guard.js';
import { PolicyService } from './policy/policy-service.js';
import { KyselyPolicyStore } from './policy/policy-store.js';
import { type Db, openDatabase, pingDatabase } from './store/database.js';
import { KeyRing } from './tokens/key-ring.js';
import { KeySealer } from './tokens/key-sealer.js';
import { KyselyLdapMappingStore } from './ldap/kysely-ldap-mapping-store.js';
import { LdapMappingService } from './ldap/ldap-mapping-service.js';
import { LdapRealm } from './ldap/ldap-realm.js';
import { LdapService } from './ldap/ldap-service.js';
import { LdapSettings } from './ldap/ldap-settings.js';
import { TrustedCa } from './certs/trusted-ca.js';
import { readFileSync } from 'node:fs';
import { KyselyKeyStore } from './tokens/kysely-key-store.js';
import { RevocationList } from './tokens/revocation-list.js';
import { KyselyRevocationStore, type RevocationStore } from './tokens/revocation-store.js';
import { TokenIssuer } from './tokens/token-issuer.js';
import { TokenVerifier } from './tokens/token-verifier.js';
import { AccountService, type AccountDeps } from './users/account-service.js';
import { KyselyRoleStore } from './roles/kysely-role-store.js';
import { RoleService } from './roles/role-service.js';
import { KyselyUserStore } from './users/kysely-user-store.js';
import { UserReadCache } from './users/user-read-cache.js';
import { Argon2Hasher, type PasswordHasher } from './users/password-hasher.js';

/** /readyz answers within about this long, whatever the store does. */
const READINESS_MS = 1000;

export interface OpenOptions {
  clock?: Clock;
  /** Where audit lines (and Redis trouble) go; nowhere when omitted. */
  logger?: Logger;
  /** What the parts report to; a registry of its own when omitted. */
  metrics?: Metrics;
}

/** The store and the account rules: what the `users` CLI commands need. */
export interface Accounts {
  config: Config;
  clock: Clock;
  db: Db;
  users: KyselyUserStore;
  hasher: PasswordHasher;
  policy: PolicyService;
  audit: AuditLog;
  lockout: Lockout;
  accounts: AccountService;
  roles: RoleService;
  /** Prometheus metrics of this process (served by the metrics listener). */
  metrics: Metrics;
  /** What `accounts` was made with, for a server's own with password confirmation. */
  accountDeps: AccountDeps;
  close(): Promise<void>;
}

/** Everything a serving node works with, wired once: the composition root. */
export interface Tessera extends Accounts {
  /** Users for the read routes, kept up to a second (see UserReadCache). */
  userReads: UserReadCache;
  keys: KeyRing;
  revocations: RevocationList;
  /** The revocation events as services read them (GET /v1/revocations). */
  revocationFeed: Pick<RevocationStore, 'feedAfter'>;
  auth: AuthService;
  /** Which shared services answer now; for /readyz. */
  readiness(): Promise<{ store: boolean; redis?: boolean }>;
  /** The issuer the store had before this node changed it (see settleIssuer). */
  issuerChangedFrom?: string;
  /** The LDAP configuration (/v1/cluster/ldap) and its mappings (/v1/ldap_mappings). */
  ldap: LdapService;
  ldapMappings: LdapMappingService;
  /** The CAs client certificates must chain to (mtls_trusted_ca). */
  trustedCa: TrustedCa;
}

export async function openAccounts(config: Config, options: OpenOptions = {}, guard?: LoginGuard): Promise<Accounts> {
  const clock = options.clock ?? systemClock;
  const db = await openDatabase(config);
  try {
    const users = new KyselyUserStore(db);
    const argon2 = await Argon2Hasher.create(config.argon2);
    // One argon2id operation a core at once. One more would fill the gaps and win ~8%
    // throughput, but under overload it takes the event loop's share of the cores: on 2
    // cores /healthz p99 went from 15-18 ms to 300-390 ms (bench/RESULTS.md, issue 5 note).
    const metrics = options.metrics ?? new Metrics();
    const threads = config.hashThreads ?? availableParallelism();
    const admission = new Admission(threads, config.loginQueueMs, argon2.typicalMs, (ms) => metrics.queueWaited(ms));
    metrics.watchQueue(() => admission.depth);
    const hasher = new AdmittedHasher(argon2, admission, (ms) => metrics.passwordVerified(ms));
    const policy = new PolicyService(new KyselyPolicyStore(db), clock);
    const audit = new AuditLog(options.logger);
    audit.onRecord = (record) => record.event === 'lockout' && metrics.lockedOut();
    const lockout = new Lockout(guard ?? new MemoryLoginGuard(clock), users, audit, clock);
    const roleStore = new KyselyRoleStore(db);
    const accountDeps: AccountDeps = { users, roles: roleStore, hasher, policy, lockout, audit, clock };
    const accounts = new AccountService(accountDeps);
    const roles = new RoleService(roleStore, users, audit);
    return { config, clock, db, users, hasher, policy, audit, lockout, accounts, roles, accountDeps, metrics, close: () => db.destroy() };
  } catch (err) {
    await db.destroy();
    throw err;
  }
}

export async function openTessera(config: Config, options: OpenOptions = {}): Promise<Tessera> {
  const clock = options.clock ?? systemClock;
  const metrics = options.metrics ?? new Metrics();
  const redis = config.redisUrl ? await connectRedis(config.redisUrl, metrics, options.logger) : undefined;
  const guard = redis
    ? new ResilientLoginGuard(
        new RedisLoginGuard(redis, config.redisKeyPrefix, clock),
        config.redisFailOpen ? new MemoryLoginGuard(clock) : null,
        (err) => {
          metrics.redisFailed('lockout');
          options.logger?.warn({ err: String(err) }, 'redis unavailable for lockout counters');
        },
      )
    : new MemoryLoginGuard(clock);
  let base: Accounts | undefined;
  try {
    base = await openAccounts(config, { ...options, metrics }, guard);
    const { db, users, hasher, policy, audit, lockout } = base;
    const keys = await loadKeyRing(db, config, clock);
    const { changedFrom: issuerChangedFrom } = await settleIssuer(db, config);
    const revocationStore = new KyselyRevocationStore(db);
    const revocations = new RevocationList(revocationStore, clock);
    await revocations.start();
    keys.start();
    users.onRevoked = (uid) => revocations.userChanged(uid);
    const userReads = new UserReadCache(users, clock);
    const verified = new VerifiedCredentials(config.authCacheSeconds, clock);
    const forget = (uid: number, what?: 'last_login') => {
      userReads.forget(uid);
      // A recorded login changes nothing a password check depends on.
      if (what !== 'last_login') verified.forget(uid);
    };
    users.onChanged = forget;
    revocations.onUserChanged = forget;
    const throttle = new ClientThrottle(config.authRateLimit, redis && { client: redis, prefix: config.redisKeyPrefix });
    const [iss, aud] = [issuerOf(config), audiencesOf(config)];
    const issuer = new TokenIssuer(keys, iss, aud, clock);
    const verifier = new TokenVerifier(keys, iss, aud, config.clockLeewaySeconds, clock);
    const ldapSettings = new LdapSettings(db, sealerOf(config), clock);
    const ldapMappings = new LdapMappingService(new KyselyLdapMappingStore(db), base.accountDeps.roles, users, audit);
    base.roles.mappingsGiving = async (roleUid) => (await ldapMappings.list()).filter((m) => m.role_uids.includes(roleUid)).length;
    const ldapRealm = new LdapRealm(ldapSettings, ldapMappings, users, clock);
    ldapRealm.onChecked = (outcome, seconds) => metrics.directoryChecked(outcome, seconds);
    const ldap = new LdapService(ldapSettings, users, audit);
    const trustedCa = new TrustedCa(db, clock);
    await seedTrustedCa(trustedCa, config, options.logger);
    const auth = new AuthService({
      ...{ users, credentials: users, hasher, issuer, verifier, verified, ldap: ldapRealm, trustedCa },
      ...{ revocations, policy, lockout, throttle, audit, clock, loginTimeoutMs: config.loginTimeoutMs },
    });
    issuer.onIssued = (alg) => metrics.tokenIssued(alg);
    auth.onTokenChecked = (result, cached) => metrics.tokenChecked(result, cached);
    auth.onVerified = (cached) => metrics.rightPassword(cached);
    const readiness = async () => {
      const [store, redisUp] = await Promise.all([
        within(pingDatabase(db), READINESS_MS, () => new Error('no answer')).then(() => true, () => false),
        redis?.ping().then(() => true, () => false), // within the client's command timeout
      ]);
      return { store, ...(redisUp !== undefined && { redis: redisUp }) };
    };
    const close = async () => {
      keys.stop();
      await revocations.stop();
      await db.destroy();
      redis?.disconnect();
    };
    // A server's accounts confirm a user's current password as a login does (throttling, lockout).
    const accounts = new AccountService({
      ...base.accountDeps,
      confirmPassword: async (username, password, ctx) => (await auth.checkPassword({ username, password }, ctx, { allowExpired: true })).user,
    });
    return { ...base, accounts, userReads, keys, revocations, revocationFeed: revocationStore, auth, readiness, close, issuerChangedFrom, ldap, ldapMappings, trustedCa };
  } catch (err) {
    await base?.close();
    redis?.disconnect();
    throw err;
  }
}

/**
 * --client-ca at a start: the store's trusted CA for client certificates when it has none;
 * when it has one, the store's wins (the API changes it) and the log says so.
 */
async function seedTrustedCa(trustedCa: TrustedCa, config: Config, logger?: Logger): Promise<void> {
  const file = config.mtls.clientCaFile;
  if (!file) return;
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`--client-ca ${file} cannot be read: ${(err as Error).message}`);
  }
  const current = await trustedCa.pem();
  if (current === '') await trustedCa.set(pem).catch((err: Error) => Promise.reject(new ConfigError(`--client-ca ${file}: ${err.message}`)));
  else if (current.trim() !== pem.trim()) logger?.warn({ file }, 'the store already has a trusted CA for client certificates (mtls_trusted_ca): --client-ca is not used; change it with PUT /v1/cluster/certificates');
}

/** What seals secrets at rest (signing keys, the LDAP bind password): the master key, when there is one. */
function sealerOf(config: Config): KeySealer {
  return new KeySealer(config.masterKey ? masterKeyBytes(config.masterKey) : undefined);
}

/** The signing keys as the configuration says to keep them (serve and `tessera keys`). */
export function loadKeyRing(db: Db, config: Config, clock: Clock = systemClock): Promise<KeyRing> {
  return KeyRing.load(new KyselyKeyStore(db), {
    sealer: sealerOf(config),
    clock,
    alg: config.signingAlg,
    activationDelayMs: config.keyActivationDelaySeconds * 1000,
    leewayMs: config.clockLeewaySeconds * 1000,
  });
}

/** Fails commands at once while Redis is away (no offline queue), and reconnects by itself. */
async function connectRedis(url: string, metrics: Metrics, logger?: Logger): Promise<Redis> {
  const { Redis } = await import('ioredis'); // loaded only by nodes that use it
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 1000,
    connectTimeout: 1000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  });
  let warned = false;
  redis.on('error', (err) => {
    metrics.redisFailed('connection');
    if (!warned) logger?.warn({ err: err.message }, 'redis connection error');
    warned = true;
  });
  redis.on('ready', () => (warned = false));
  return redis;
}
