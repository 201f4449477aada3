import { readFileSync } from 'node:fs';
import { availableParallelism, hostname } from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { ApiKeyCache } from './api-keys/api-key-cache.js';
import { ApiKeyService } from './api-keys/api-key-service.js';
import { KyselyApiKeyStore } from './api-keys/api-key-store.js';
import { LastUsed } from './api-keys/last-used.js';
import { AuditLog, START_CONTEXT } from './audit/audit-log.js';
import { Callers } from './auth/callers.js';
import { CertificateGuards, certificateRememberedAs } from './auth/guards/certificate-guards.js';
import { PasswordGuards, passwordRememberedAs } from './auth/guards/password-guards.js';
import { RememberingRealm } from './auth/guards/remembering-realm.js';
import { Logins } from './auth/logins.js';
import { RealmChain } from './auth/realm-chain.js';
import { ApiKeyRealm } from './auth/realms/api-key-realm.js';
import { CertificateUserRealm } from './auth/realms/certificate-realm.js';
import { LdapRealm } from './auth/realms/ldap-realm.js';
import { LocalRealm } from './auth/realms/local-realm.js';
import { SsoRealm } from './auth/realms/sso-realm.js';
import { SecondStep } from './auth/second-step.js';
import { SsoSignIn } from './auth/sso-sign-in.js';
import { VerifiedCredentials } from './auth/verified-credentials.js';
import { ApiCertificates } from './certs/api-certificate.js';
import { ApiCertificateService, type StartedCertificate } from './certs/api-certificate-service.js';
import { CertificateTrust } from './certs/certificate-trust.js';
import { KeptCertificateService } from './certs/kept-certificate-service.js';
import { KeptCertificates } from './certs/kept-certificates.js';
import { TrustedCa } from './certs/trusted-ca.js';
import { type Clock, systemClock } from './clock.js';
import {
  audiencesOf,
  type Config,
  ConfigError,
  issuerOf,
  masterKeyBytes,
  publicUrlOf,
  siemFileDirOf,
} from './config/config.js';
import { within } from './deadline.js';
import type { EventLogStore } from './event-log/event-log.js';
import { EventLogWriter } from './event-log/event-log-writer.js';
import { KyselyEventLog } from './event-log/kysely-event-log.js';
import { EventHub } from './events.js';
import { Admission } from './guard/admission.js';
import { AdmittedHasher } from './guard/admitted-hasher.js';
import { ClientThrottle } from './guard/client-throttle.js';
import { Lockout } from './guard/lockout.js';
import { type LoginGuard, MemoryLoginGuard } from './guard/login-guard.js';
import { RedisLoginGuard } from './guard/redis-login-guard.js';
import { ResilientLoginGuard } from './guard/resilient-login-guard.js';
import { PassedOver } from './ldap/directory.js';
import { KyselyLdapMappingStore } from './ldap/kysely-ldap-mapping-store.js';
import { LdapMappingService } from './ldap/ldap-mapping-service.js';
import { LdapService } from './ldap/ldap-service.js';
import { LdapSettings } from './ldap/ldap-settings.js';
import { Metrics } from './metrics/metrics.js';
import { MfaService } from './mfa/mfa-service.js';
import { KyselyMfaStore } from './mfa/mfa-store.js';
import { relyingPartyOf } from './mfa/passkeys.js';
import { ClusterSettings } from './policy/cluster-settings.js';
import { PolicyService } from './policy/policy-service.js';
import { KyselyPolicyStore } from './policy/policy-store.js';
import type { Readiness } from './probes/readiness.js';
import { KyselyRoleStore } from './roles/kysely-role-store.js';
import { RoleCatalog } from './roles/role-catalog.js';
import { RoleService } from './roles/role-service.js';
import { ConsoleIdle } from './sessions/console-idle.js';
import { KyselySessionStore } from './sessions/kysely-session-store.js';
import { SessionService } from './sessions/session-service.js';
import { Delivery } from './siem/delivery.js';
import { Outbox } from './siem/outbox.js';
import { SiemMetrics } from './siem/siem-metrics.js';
import { SiemRecorder } from './siem/siem-recorder.js';
import { SiemService } from './siem/siem-service.js';
import { SiemSettings, type SinkSettings } from './siem/siem-settings.js';
import type { Transports } from './siem/transports/transport.js';
import { transportOf } from './siem/transports/transport-of.js';
import { SamlStore } from './sso/saml-store.js';
import { REQUEST_MS, ServiceProvider } from './sso/service-provider.js';
import { SsoCertificates } from './sso/sso-certificates.js';
import { SsoService } from './sso/sso-service.js';
import { SsoSettings } from './sso/sso-settings.js';
import { type Db, openDatabase, pingDatabase } from './store/database.js';
import { storeCreatedTime } from './store/store-created.js';
import { AcceptedIssuers } from './tokens/accepted-issuers.js';
import { KeyRing } from './tokens/key-ring.js';
import { KeySealer } from './tokens/key-sealer.js';
import { KyselyKeyStore } from './tokens/kysely-key-store.js';
import { RevocationList } from './tokens/revocation-list.js';
import { KyselyRevocationStore, type RevocationStore } from './tokens/revocation-store.js';
import { readIssuer, type SettledIssuer, settleIssuer } from './tokens/store-issuer.js';
import { TokenIssuer } from './tokens/token-issuer.js';
import { TokenVerifier } from './tokens/token-verifier.js';
import { whenSettled } from './unit-of-work.js';
import { assertMayManage } from './users/account-access.js';
import type { AccountDeps } from './users/account-deps.js';
import { KyselyUserStore } from './users/kysely-user-store.js';
import { LastLogins } from './users/last-logins.js';
import { PasswordChanges } from './users/password-changes.js';
import { Argon2Hasher, type PasswordHasher } from './users/password-hasher.js';
import { UserCreation } from './users/user-creation.js';
import { UserDeletion } from './users/user-deletion.js';
import { UserReadCache } from './users/user-read-cache.js';
import { UserUnlock } from './users/user-unlock.js';
import { UserUpdate } from './users/user-update.js';
import { viewUser } from './users/user-viewing.js';

/** /readyz answers within about this long, whatever the store does. */
const READINESS_MS = 1000;

export interface OpenOptions {
  clock?: Clock;
  /** Where audit lines (and Redis trouble) go; nowhere when omitted. */
  logger?: Logger;
  /** What the API's TLS listener starts with (server.ts); none without TLS. */
  listenerCertificate?: StartedCertificate;
}

/** The use cases of users, one object each (src/users/). */
export interface UserUseCases {
  userCreation: UserCreation;
  userUpdate: UserUpdate;
  passwordChanges: PasswordChanges;
  userUnlock: UserUnlock;
  userDeletion: UserDeletion;
}

/** The store, the accounts and the ways in: what the `users` CLI commands need, and a server builds on. */
export interface Accounts extends UserUseCases {
  config: Config;
  clock: Clock;
  db: Db;
  /** What the parts announce (changes, checks) and who listens: made first. */
  events: EventHub;
  /** Prometheus metrics of this process (served by the management listener). */
  metrics: Metrics;
  users: KyselyUserStore;
  hasher: PasswordHasher;
  policy: PolicyService;
  audit: AuditLog;
  lockout: Lockout;
  /** Users for the read routes (and remembered credentials), kept up to a second. */
  userReads: UserReadCache;
  revocations: RevocationList;
  /** The ways in (local passwords, the LDAP directory, client certificates) behind one set of guards. */
  chain: RealmChain;
  /** Sessions: started by logins, listed and ended (/v1/users/{uid}/sessions), bounded by session_max_lifetime_minutes. */
  sessions: SessionService;
  /** Where sessions are kept: the one store the session service and the console's idle sign-out share. */
  sessionStore: KyselySessionStore;
  roles: RoleService;
  /** Users' API keys (/v1/users/{uid}/api_keys). */
  apiKeys: ApiKeyService;
  /** Users' second factors (/v1/users/{uid}/mfa): enrolment, listing, removal, recovery codes. */
  mfa: MfaService;
  /** The second step of a login of a user with a second factor (POST /v1/users/authorize/mfa). */
  secondStep: SecondStep;
  /** Whether an API key stands as a login proved it, read from the store (Logins.keyStands). */
  keyStands(id: string, until: Date | undefined, cidrs: readonly string[] | undefined): Promise<boolean>;
  cluster: ClusterSettings;
  /** The LDAP configuration (/v1/cluster/ldap) and its mappings (/v1/ldap_mappings). */
  ldap: LdapService;
  ldapMappings: LdapMappingService;
  /** The CAs client certificates must chain to (mtls_trusted_ca). */
  certificateTrust: CertificateTrust;
  /** The REST API's own TLS certificate (the product's `api`): stored for every node, rotated. */
  apiCertificate: ApiCertificateService;
  /** The product's other certificates (`proxy`, `cm`, …): kept and shown, used by nothing here. */
  keptCertificates: KeptCertificateService;
  /** SSO's settings and certificates (/v1/cluster/sso). */
  sso: SsoService;
  /** What SSO keeps in the store (requests, assertions used, sign-in codes, sessions). */
  samlStore: SamlStore;
  /** Attempts a client address may make a minute: logins that check a secret, and SSO sign-ins. */
  throttle: ClientThrottle;
  /** The event log (GET /v1/logs, tessera events), and its writer (flushed before a read, and at close). */
  eventLog: EventLogStore;
  eventWriter: EventLogWriter;
  serviceProvider: ServiceProvider;
  /** The control plane's auditing: its SIEM sinks (/v1/cluster/auditing/control_plane), and what puts events in their outbox. */
  siem: SiemService;
  siemSettings: SiemSettings;
  siemRecorder: SiemRecorder;
  siemTransports: Transports;
  /** This node's name in the events it records and the sinks it delivers: host/pid. */
  node: string;
  close(): Promise<void>;
}

/** Everything a serving node works with, wired once: the composition root. */
export interface Tessera extends Accounts {
  keys: KeyRing;
  /** The revocation events as services read them (GET /v1/revocations). */
  revocationFeed: Pick<RevocationStore, 'feedAfter'>;

  /** Who a request's credentials are (tokens, passwords, certificates). */
  callers: Callers;
  /** Logins, refreshes and logouts. */
  logins: Logins;
  /** SSO sign-ins of the console: to the identity provider, its answer into a one-time code, the code for a token. */
  ssoSignIn: SsoSignIn;
  /** Which shared services answer now; for /readyz. */
  readiness: Readiness;
  /** What this node learned of the store's issuer as it opened it (see settleIssuer). */
  issuer: SettledIssuer;
}

/** The store and the accounts, for a CLI command: lockout counters in memory, no throttle, nothing remembered. */
export function openAccounts(config: Config, options: OpenOptions = {}): Promise<Accounts> {
  const events = new EventHub();
  return openCore({ ...config, authCacheSeconds: 0 }, options, events, new Metrics(events));
}

export async function openTessera(config: Config, options: OpenOptions = {}): Promise<Tessera> {
  const clock = options.clock ?? systemClock;
  const events = new EventHub();
  const metrics = new Metrics(events);
  const redis = config.redisUrl ? await connectRedis(config.redisUrl, metrics, options.logger) : undefined;
  let core: Accounts | undefined;
  try {
    core = await openCore(config, { ...options, server: true }, events, metrics, redis);
    const { db, users, revocations, chain, policy, audit } = core;
    const keys = await loadKeyRing(db, config, clock);
    const settled = await settleIssuer(db, config, clock);
    if (settled.movedFrom) {
      audit.record(START_CONTEXT, {
        event: 'issuer_move',
        outcome: 'success',
        target: 'issuer',
        reason: `from ${settled.movedFrom.issuer} to ${issuerOf(config)} (a start with another address)`,
      });
    }
    await revocations.start();
    keys.start();
    const [iss, aud] = [issuerOf(config), audiencesOf(config)];
    const origins = new AcceptedIssuers(
      { issuer: iss, audiences: aud, audiencesGiven: config.audiences.length > 0 },
      () => readIssuer(db),
      clock,
      await readIssuer(db),
    );
    const issuer = new TokenIssuer(keys, iss, aud, origins, clock, events);
    const verifier = new TokenVerifier(keys, origins, config.clockLeewaySeconds, clock);
    const { sessions, sessionStore, mfa } = core;
    const consoleIdle = new ConsoleIdle(sessionStore, policy, clock, (sid) => sessions.endOne(sid));
    const callers = new Callers({
      chain,
      verifier,
      revocations,
      events,
      lastLogins: new LastLogins(users, clock),
      consoleIdle,
    });
    const logins = new Logins({
      chain,
      users,
      issuer,
      revocations,
      sessions,
      policy,
      secondStep: core.secondStep,
      audit,
      clock,
      loginTimeoutMs: config.loginTimeoutMs,
      keyStands: core.keyStands,
    });
    const ssoSignIn = new SsoSignIn({
      logins,
      provider: core.serviceProvider,
      store: core.samlStore,
      users,
      throttle: core.throttle,
      clock,
    });
    // The outbox to the SIEM sinks, delivered by whichever node holds each sink's lease.
    const outbox = new Outbox(db);
    const siemMetrics = new SiemMetrics(
      metrics.registry,
      () => delivery.records,
      clock,
      () => core!.siemRecorder.lost,
    );
    const delivery = new Delivery(
      outbox,
      core.siemSettings,
      core.node,
      clock,
      {
        delivered: (sink, n) => siemMetrics.delivered(sink, n),
        failed: (sink) => siemMetrics.failed(sink),
        dropped: (sink, n) => siemMetrics.dropped(sink, n),
        audit: (record) => audit.record(START_CONTEXT, record),
      },
      core.siemTransports,
      (err) => options.logger?.warn({ err: String(err) }, 'SIEM delivery'),
    );
    core.siemRecorder.onWritten = () => delivery.nudge();
    core.siemRecorder.sendNow = (sink, events) => delivery.sendNow(sink, events);
    const siem = new SiemService(
      core.siemSettings,
      outbox,
      audit,
      core.siemRecorder,
      clock,
      siemFileDirOf(config),
      delivery,
    );
    const pruneSessions = setInterval(() => {
      void sessions.prune().catch(() => {});
      void mfa.prune().catch(() => {});
    }, 3_600_000).unref();
    const readiness = async () => {
      origins.refresh(); // an idle node too learns of a move of the store's issuer
      const issuerMovedTo = origins.movedTo(clock());
      const [store, redisUp] = await Promise.all([
        within(pingDatabase(db), READINESS_MS, () => new Error('no answer')).then(
          () => true,
          () => false,
        ),
        redis?.ping().then(
          () => true,
          () => false,
        ), // within the client's command timeout
      ]);
      return { store, ...(redisUp !== undefined && { redis: redisUp }), ...(issuerMovedTo && { issuerMovedTo }) };
    };
    const closeCore = core.close;
    const close = async () => {
      keys.stop();
      clearInterval(pruneSessions);
      await core!.siemRecorder.flush();
      await delivery.close();
      await closeCore();
      redis?.disconnect();
    };
    return {
      ...core,
      siem,
      keys,
      revocationFeed: new KyselyRevocationStore(db),
      callers,
      logins,
      ssoSignIn,
      readiness,
      close,
      issuer: settled,
    };
  } catch (err) {
    await core?.close();
    redis?.disconnect();
    throw err;
  }
}

/** Everything but the tokens: the store, the hasher, the guards, the realms and their chain, the use cases. Each part made once. */
async function openCore(
  config: Config,
  options: OpenOptions & { server?: boolean },
  events: EventHub,
  metrics: Metrics,
  redis?: Redis,
): Promise<Accounts> {
  const clock = options.clock ?? systemClock;
  const db = await openDatabase(config);
  try {
    const users = new KyselyUserStore(db, events);
    // One hash a core and one more: the hashing threads run below the event loop's priority, so
    // the extra one fills the gaps between hashes (the event loop starts each next one) without
    // taking the event loop's share of the cores (bench/RESULTS.md, issue 24 note).
    const threads = config.hashThreads ?? availableParallelism() + 1;
    const argon2 = Argon2Hasher.create(config.argon2, threads);
    const admission = new Admission(threads, config.loginQueueMs, argon2.typicalMs, (ms) => metrics.queueWaited(ms));
    metrics.watchQueue(() => admission.depth);
    const hasher = new AdmittedHasher(argon2, admission, (ms) => metrics.passwordVerified(ms));
    const policy = new PolicyService(new KyselyPolicyStore(db), clock);
    const audit = new AuditLog(events, options.logger);
    const lockout = new Lockout(loginGuard(redis, config, clock, metrics, options.logger), users, audit, clock);
    const userReads = new UserReadCache(users, clock, events);
    const revocations = new RevocationList(new KyselyRevocationStore(db), clock, events);
    const roleStore = new KyselyRoleStore(db);
    const ldapSettings = new LdapSettings(db, sealerOf(config), clock);
    const ldapMappings = new LdapMappingService(new KyselyLdapMappingStore(db), roleStore, users, audit);
    const passedOver = new PassedOver();
    const trustedCa = new TrustedCa(db, clock);
    await seedTrustedCa(trustedCa, config, options.logger);
    const ssoSettings = new SsoSettings(db, clock);
    const ssoCertificates = new SsoCertificates(db, sealerOf(config), clock);
    const samlStore = new SamlStore(db, clock, REQUEST_MS);
    const serviceProvider = new ServiceProvider(ssoSettings, ssoCertificates, samlStore, publicUrlOf(config), clock);
    const throttle = new ClientThrottle(
      config.authRateLimit,
      redis && { client: redis, prefix: config.redisKeyPrefix },
    );
    // What a success is remembered by: the verified-credentials cache of every realm that remembers.
    const remembering = {
      verified: new VerifiedCredentials(config.authCacheSeconds, clock),
      ...{ userReads, revocations, policy, clock },
    };
    // The ways in, in the order they are asked, each behind the guards of its kind of proof.
    // The directory proves passwords, and (cba) says whose a trusted certificate is.
    const directory = new LdapRealm(ldapSettings, ldapMappings, users, passedOver, events, clock);
    const passwords = new PasswordGuards([new LocalRealm(users, hasher, ssoSettings, policy, clock), directory], {
      ...{ users, throttle, lockout, policy, hasher },
    });
    const certificates = new CertificateGuards([new CertificateUserRealm(policy, users), directory], {
      ...{ policy, trustedCa, throttle, clock },
    });
    // An API key: one hash and a lookup in memory; a key's owner and the roles that narrow it read at most once a second.
    const apiKeyStore = new KyselyApiKeyStore(db);
    const apiKeyCache = new ApiKeyCache(apiKeyStore, clock);
    const keys = new ApiKeyRealm({
      ...{ keys: apiKeyCache, users: userReads, roles: new RoleCatalog(roleStore, clock), sso: ssoSettings },
      ...{ throttle, events, clock },
      lastUsed: new LastUsed(apiKeyStore, clock),
    });
    const chain = new RealmChain({
      realms: [
        keys,
        new RememberingRealm(passwords, passwordRememberedAs, remembering),
        new RememberingRealm(certificates, certificateRememberedAs, remembering),
        new SsoRealm(ssoSettings, serviceProvider, users, roleStore, samlStore, throttle, clock),
      ],
      ...{ policy, audit, events, clock },
      loginTimeoutMs: config.loginTimeoutMs,
    });
    const eventLog = new KyselyEventLog(db);
    const eventWriter = new EventLogWriter(
      eventLog,
      clock,
      {
        retentionDays: config.eventLogDays,
        maxEvents: config.eventLogMax,
        flushMs: 1000,
        prune: options.server === true,
      },
      (err) => options.logger?.warn({ err: String(err) }, 'the event log could not be written'),
      events,
    );
    // The event log keeps what a change did once it is committed, and a refusal whatever became of the change.
    events.on('audited', (record, ctx) =>
      whenSettled(() => eventWriter.add(record, ctx), record.outcome === 'failure'),
    );
    const siemSettings = new SiemSettings(db, sealerOf(config), clock);
    const transports = (sink: SinkSettings) => transportOf(sink, clock, siemFileDirOf(config));
    const node = nodeName();
    const siemRecorder = new SiemRecorder(new Outbox(db), siemSettings, node, clock, (err) =>
      options.logger?.warn({ err: String(err) }, 'events for the SIEM sinks could not be written'),
    );
    events.on('audited', (record, ctx) => siemRecorder.record(record, ctx));
    const close = async () => {
      await siemRecorder.close();
      await eventWriter.close();
      await revocations.stop();
      await argon2.close();
      await db.destroy();
    };
    const sessionStore = new KyselySessionStore(db);
    // Second factors: the TOTP secrets sealed like the store's other secrets; passkeys for the public URL's host name.
    const mfaStore = new KyselyMfaStore(db);
    const relyingParty = relyingPartyOf(publicUrlOf(config));
    const secondStep = new SecondStep({
      ...{ store: mfaStore, sealer: sealerOf(config), users, lockout, policy, relyingParty, audit, events, clock },
      loginTimeoutMs: config.loginTimeoutMs,
    });
    const accountDeps: AccountDeps = {
      ...{ users, roles: roleStore, hasher, policy, lockout, audit, clock, identities: chain, sessions: sessionStore },
      clusterName: async () => (await policy.get()).name,
    };
    const userCases: UserUseCases = {
      userCreation: new UserCreation(accountDeps),
      userUpdate: new UserUpdate(accountDeps),
      passwordChanges: new PasswordChanges(accountDeps),
      userUnlock: new UserUnlock(accountDeps),
      userDeletion: new UserDeletion(accountDeps),
    };
    const sessions = new SessionService({
      store: sessionStore,
      policy,
      revocations,
      users,
      accounts: { view: viewUser, assertMayManage },
      audit,
      clock,
    });
    return {
      ...{
        config,
        clock,
        db,
        events,
        metrics,
        users,
        hasher,
        policy,
        audit,
        lockout,
        userReads,
        revocations,
        chain,
        throttle,
        ldapMappings,
        samlStore,
        serviceProvider,
        eventLog,
        eventWriter,
        siemSettings,
        siemRecorder,
        siemTransports: transports,
        node,
        close,
      },
      siem: new SiemService(siemSettings, new Outbox(db), audit, siemRecorder, clock, siemFileDirOf(config)),
      ...userCases,
      sessions,
      sessionStore,
      roles: new RoleService(roleStore, users, audit),
      keyStands: async (id, until, cidrs) => {
        const key = await apiKeyStore.get(id);
        return (
          key !== undefined &&
          key.expiresAt.getTime() === until?.getTime() &&
          isDeepStrictEqual(key.allowedCidrs ?? undefined, cidrs === undefined ? undefined : [...cidrs])
        );
      },
      mfa: new MfaService({
        ...{ store: mfaStore, sealer: sealerOf(config), users, relyingParty, events, audit, clock },
        issuer: `Tessera ${new URL(publicUrlOf(config)).host}`,
        accounts: { view: viewUser, assertMayManage },
      }),
      secondStep,
      apiKeys: new ApiKeyService({
        ...{ store: apiKeyStore, cache: apiKeyCache, users, policy, revocations, audit, clock },
        accounts: { view: viewUser, assertMayManage },
      }),
      cluster: new ClusterSettings(policy, users, audit, events, {
        publicUrl: publicUrlOf(config),
        createdTime: () => storeCreatedTime(db),
        sealsKeys: sealerOf(config).sealing,
      }),
      ldap: new LdapService(ldapSettings, users, passedOver, audit),
      certificateTrust: new CertificateTrust(trustedCa, users, audit),
      apiCertificate: new ApiCertificateService(
        new ApiCertificates(db, sealerOf(config), clock),
        options.listenerCertificate,
        events,
        audit,
        clock,
      ),
      keptCertificates: new KeptCertificateService(new KeptCertificates(db, sealerOf(config), clock), audit, clock),
      sso: new SsoService(ssoSettings, ssoCertificates, serviceProvider, users, audit, publicUrlOf(config)),
    };
  } catch (err) {
    await db.destroy();
    throw err;
  }
}

let nodes = 0;
/** Which node recorded an event: its host name and process (and which of the process's, for tests that run two). */
const nodeName = () => `${hostname()}/${process.pid}${++nodes > 1 ? `-${nodes}` : ''}`;

/** Where the lockout counts failures: Redis when nodes share one (memory as insurance if asked), else this process's memory. */
function loginGuard(
  redis: Redis | undefined,
  config: Config,
  clock: Clock,
  metrics: Metrics,
  logger?: Logger,
): LoginGuard {
  if (!redis) return new MemoryLoginGuard(clock);
  return new ResilientLoginGuard(
    new RedisLoginGuard(redis, config.redisKeyPrefix, clock),
    config.redisFailOpen ? new MemoryLoginGuard(clock) : null,
    (err) => {
      metrics.redisFailed('lockout');
      logger?.warn({ err: String(err) }, 'redis unavailable for lockout counters');
    },
  );
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
  if (current === '')
    await trustedCa
      .set(pem)
      .catch((err: Error) => Promise.reject(new ConfigError(`--client-ca ${file}: ${err.message}`)));
  else if (current.trim() !== pem.trim())
    logger?.warn(
      { file },
      'the store already has a trusted CA for client certificates (mtls_trusted_ca): --client-ca is not used; change it with PUT /v1/cluster/certificates',
    );
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
