import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { ApiKeyCheck } from '../auth/realms/api-key-realm.js';
import type { EventHub, TokenCheck } from '../events.js';
import { RequestTimes } from './request-times.js';

export type LoginOutcome =
  | 'success'
  | 'invalid_credentials'
  | 'certificate_refused'
  | 'password_expired'
  | 'account_locked'
  | 'second_factor_asked'
  | 'throttled'
  | 'shed'
  | 'unavailable';

/** Login outcomes by the error code a login ended with; other codes are not logins (a malformed request). */
const OUTCOME_BY_CODE: Record<string, LoginOutcome> = {
  invalid_credentials: 'invalid_credentials',
  password_expired: 'password_expired',
  account_locked: 'account_locked',
  mfa_required: 'second_factor_asked',
  too_many_requests: 'throttled',
  try_again: 'shed',
  store_unavailable: 'unavailable',
  guard_unavailable: 'unavailable',
  directory_unavailable: 'unavailable',
  certificate_required: 'certificate_refused',
  certificate_untrusted: 'certificate_refused',
  certificate_expired: 'certificate_refused',
  certificate_not_yet_valid: 'certificate_refused',
  certificate_subject_unknown: 'certificate_refused',
};

export function loginOutcomeOf(errorCode: string): LoginOutcome | undefined {
  return OUTCOME_BY_CODE[errorCode];
}

const LOGIN_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5];

/**
 * Tessera's Prometheus metrics, in a registry of its own. Labels take values from fixed
 * sets only (outcomes, route patterns, methods, statuses): never a username, a uid, an
 * address or a raw URL.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly logins = new Counter({
    name: 'tessera_logins_total',
    help: 'Logins (POST /v1/users/authorize) by outcome and wire format',
    labelNames: ['outcome', 'api_line'] as const,
    registers: [this.registry],
  });
  private readonly loginSeconds = new Histogram({
    name: 'tessera_login_duration_seconds',
    help: 'Time to answer a login, by outcome',
    labelNames: ['outcome'] as const,
    buckets: LOGIN_BUCKETS,
    registers: [this.registry],
  });
  private readonly verifySeconds = new Histogram({
    name: 'tessera_password_verify_duration_seconds',
    help: 'Time of one argon2id verification on a hashing thread',
    buckets: [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5],
    registers: [this.registry],
  });
  private readonly queueWaitSeconds = new Histogram({
    name: 'tessera_login_queue_wait_seconds',
    help: "Time a password check (or a new password's hash) waited for a hashing thread",
    buckets: [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2],
    registers: [this.registry],
  });
  /** Right credentials by realm and source, counted in a plain map and handed over at scrape: a Basic or key read makes one. */
  private readonly verifiedCounts = new Map<string, number>();
  private readonly verifiedCredentials = new Counter({
    name: 'tessera_credentials_verified_total',
    help: 'Right credentials (passwords, directory passwords, client certificates), by realm and where they were checked: the verified-credentials cache, or by the realm in full',
    labelNames: ['realm', 'source'] as const,
    registers: [this.registry],
    collect: () => {
      this.verifiedCredentials.reset();
      for (const [key, count] of this.verifiedCounts) {
        const [realm, source] = key.split(':');
        this.verifiedCredentials.inc({ realm, source }, count);
      }
    },
  });
  private readonly directoryChecks = new Counter({
    name: 'tessera_ldap_checks_total',
    help: 'Password checks and refreshes answered by the LDAP directory (not the cache), by outcome',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly directorySeconds = new Histogram({
    name: 'tessera_ldap_check_duration_seconds',
    help: 'Time of one LDAP directory check (connect, binds, group search)',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5],
    registers: [this.registry],
  });
  private readonly lockouts = new Counter({
    name: 'tessera_lockouts_total',
    help: 'Users locked by the lockout policy',
    registers: [this.registry],
  });
  private readonly tokensIssued = new Counter({
    name: 'tessera_tokens_issued_total',
    help: 'Tokens signed, by algorithm',
    labelNames: ['alg'] as const,
    registers: [this.registry],
  });
  /** Token checks by result, then cached or not, counted in plain arrays and handed over at scrape: every request makes one. */
  private readonly tokenCheckCounts = new Map<TokenCheck, [number, number]>();
  private readonly tokenChecks = new Counter({
    name: 'tessera_token_checks_total',
    help: 'Tokens presented to Tessera, by result and whether the verification was cached',
    labelNames: ['result', 'cached'] as const,
    registers: [this.registry],
    collect: () => {
      this.tokenChecks.reset();
      for (const [result, [fresh, cached]] of this.tokenCheckCounts) {
        if (fresh) this.tokenChecks.inc({ result, cached: 'false' }, fresh);
        if (cached) this.tokenChecks.inc({ result, cached: 'true' }, cached);
      }
    },
  });
  /** API key checks by result, counted in a plain map and handed over at scrape: automation makes one a request. */
  private readonly apiKeyCheckCounts = new Map<ApiKeyCheck, number>();
  private readonly apiKeyChecks = new Counter({
    name: 'tessera_api_key_checks_total',
    help: 'API keys presented (Bearer, Basic or at a login), by result: valid, invalid, expired, address_refused, owner_refused',
    labelNames: ['result'] as const,
    registers: [this.registry],
    collect: () => {
      this.apiKeyChecks.reset();
      for (const [result, count] of this.apiKeyCheckCounts) this.apiKeyChecks.inc({ result }, count);
    },
  });
  private readonly secondSteps = new Counter({
    name: 'tessera_mfa_verifications_total',
    help: 'Second steps of logins (POST /v1/users/authorize/mfa), by method (totp, webauthn, recovery_code) and result (accepted, refused)',
    labelNames: ['method', 'result'] as const,
    registers: [this.registry],
  });
  private readonly storeErrors = new Counter({
    name: 'tessera_store_errors_total',
    help: 'Requests answered 503 because the database was unreachable or did not answer',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  private readonly redisErrors = new Counter({
    name: 'tessera_redis_errors_total',
    help: 'Redis calls that failed, by what they were for',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  private readonly eventsLost = new Counter({
    name: 'tessera_event_log_lost_total',
    help: 'Events of the event log (GET /v1/logs) that never reached the store: a write failed, or more waited than the queue holds',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private readonly requestTimes = new RequestTimes(
    this.registry,
    { histogram: 'tessera_http_request_duration_seconds', counter: 'tessera_http_requests_total' },
    [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 3],
  );

  private queueDepth: () => number = () => 0;
  private defaults = false;

  /**
   * The exposition text, with prom-client's process and Node.js metrics from the first
   * scrape on: until somebody reads them, no collector runs (its GC observer alone cost a
   * token read ~0.4 µs: bench/RESULTS.md). Process CPU and memory are read at each scrape;
   * GC times count from the first.
   */
  exposition(): Promise<string> {
    if (!this.defaults) {
      this.defaults = true;
      collectDefaultMetrics({ register: this.registry, prefix: 'tessera_' });
    }
    return this.registry.metrics();
  }

  /** `events`: what the parts of the node announce (tokens, credentials, the directory, lockouts) is counted from there. */
  constructor(events: EventHub) {
    events.on('audited', (record) => record.event === 'lockout' && this.lockouts.inc());
    events.on('tokenIssued', (alg) => this.tokensIssued.inc({ alg }));
    events.on('secondFactorChecked', (method, result) => this.secondSteps.inc({ method, result }));
    events.on('tokenChecked', (result, cached) => this.tokenChecked(result, cached));
    events.on('apiKeyChecked', (result) =>
      this.apiKeyCheckCounts.set(result, (this.apiKeyCheckCounts.get(result) ?? 0) + 1),
    );
    events.on('credentialsVerified', (realm, cached) => {
      const key = `${realm}:${cached ? 'cache' : 'verified'}`;
      this.verifiedCounts.set(key, (this.verifiedCounts.get(key) ?? 0) + 1);
    });
    events.on('eventsLost', (reason, count) => this.eventsLost.inc({ reason }, count));
    events.on('directoryChecked', (outcome, seconds) => {
      this.directoryChecks.inc({ outcome });
      this.directorySeconds.observe(seconds);
    });
    const depth = () => this.queueDepth();
    new Gauge({
      name: 'tessera_login_queue_depth',
      help: 'Password checks and hashes waiting for a hashing thread now',
      registers: [this.registry],
      collect() {
        this.set(depth());
      },
    });
  }

  /** Where the login queue's depth is read at each scrape. */
  watchQueue(depth: () => number): void {
    this.queueDepth = depth;
  }

  login(outcome: LoginOutcome, apiLine: '7.22' | '7.4', seconds: number): void {
    this.logins.inc({ outcome, api_line: apiLine });
    this.loginSeconds.observe({ outcome }, seconds);
  }

  passwordVerified(ms: number): void {
    this.verifySeconds.observe(ms / 1000);
  }

  queueWaited(ms: number): void {
    this.queueWaitSeconds.observe(ms / 1000);
  }

  private tokenChecked(result: TokenCheck, cached: boolean): void {
    let counts = this.tokenCheckCounts.get(result);
    if (!counts) this.tokenCheckCounts.set(result, (counts = [0, 0]));
    counts[cached ? 1 : 0] += 1;
  }

  storeUnavailable(): void {
    this.storeErrors.inc({ kind: 'unavailable' });
  }

  /** `connection`: the client lost or could not make its connection; `lockout`: a lockout call failed. */
  redisFailed(kind: 'connection' | 'lockout'): void {
    this.redisErrors.inc({ kind });
  }

  httpRequest(route: string, method: string, status: number, seconds: number): void {
    this.requestTimes.observe(route, method, status, seconds);
  }
}
