import type { RealmName } from '../access/realm-name.js';
import { type AuditLog, type AuditRecord, actorOf, type RequestContext } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import { Deadline } from '../deadline.js';
import {
  AccountLockedError,
  ApiKeyRefusedError,
  CertificateRefusedError,
  type DomainError,
  InvalidRequestError,
  InvalidTokenError,
  MfaEnrolmentRequiredError,
  MfaRequiredError,
  MissingCredentialsError,
  PasswordExpiredError,
  StoreUnavailableError,
} from '../errors.js';
import type { PolicyService } from '../policy/policy-service.js';
import type { SessionService } from '../sessions/session-service.js';
import type { RevocationList } from '../tokens/revocation-list.js';
import type { TokenIssuer } from '../tokens/token-issuer.js';
import { isLocked, isPasswordExpired, secondFactorOf, type User, unlocksInSeconds } from '../users/user.js';
import type { UserStore } from '../users/user-store.js';
import type { Principal } from './principal.js';
import type { Authenticated, RealmChain } from './realm-chain.js';
import type { Proof } from './realms/realm.js';
import type { SecondStep, SecondStepAnswer } from './second-step.js';

/** What a login asked for, kept for its second step when one is asked. */
interface Asked {
  ttlSeconds: number;
  console: boolean;
}

/** Logins, refreshes and logouts: a proof (or a token) in, a token out (or ended). */
export class Logins {
  constructor(
    private readonly deps: {
      chain: RealmChain;
      users: Pick<UserStore, 'getByUid' | 'recordLogin'>;
      issuer: TokenIssuer;
      revocations: Pick<RevocationList, 'revokeToken'>;
      sessions: Pick<SessionService, 'start' | 'renew' | 'endOwn' | 'endOne'>;
      /**
       * Whether an API key stands as a login proved it (not revoked, its expiry and addresses
       * unchanged), read from the store: asked after the login's session is written, so that a
       * revocation or change another node made meanwhile (its copy of the key up to a second old)
       * ends the session rather than missing it.
       */
      keyStands(id: string, until: Date | undefined, cidrs: readonly string[] | undefined): Promise<boolean>;
      policy: PolicyService;
      /** The second step of a login of a user with a second factor. */
      secondStep: Pick<SecondStep, 'challenge' | 'pass'>;
      audit: AuditLog;
      clock: Clock;
      loginTimeoutMs: number;
    },
  ) {}

  /**
   * POST /v1/users/authorize: a proof in (a password in either wire format, or a client
   * certificate alone), a signed token out. Without one: `certificate_required` where the
   * cluster takes certificates, else `none` (what the wire format asks for). Each login starts
   * a session (`console`: the web console's, idled out by the server); the ttl is shortened to
   * what the session's lifetime leaves.
   */
  async authorize(
    proof: Proof | undefined,
    ttlSeconds: number,
    ctx: RequestContext,
    none?: DomainError,
    console = false,
  ): Promise<string> {
    // A certificate where the cluster takes none is no credentials at all.
    if (!proof || !(await this.deps.chain.takes(proof))) {
      if ((await this.deps.policy.get()).mtls_certificate_authentication) {
        throw new CertificateRefusedError(
          'certificate_required',
          'Present a client certificate, Basic credentials, or {"username", "password"}',
        );
      }
      throw none ?? new MissingCredentialsError();
    }
    const proven = await this.prove(proof, ctx, { ttlSeconds, console });
    if (!proven.apiKeyId)
      return this.issue(proven.user, proven.realm, ctx, ttlSeconds, console, undefined, {
        enrolOnly: proven.enrolOnly === true,
      });
    // A key's token lives no longer than the key.
    const left = Math.floor(((proven.until?.getTime() ?? Number.POSITIVE_INFINITY) - this.deps.clock()) / 1000);
    const ttl = Math.max(1, Math.min(ttlSeconds, left));
    return this.issue(proven.user, proven.realm, ctx, ttl, console, {
      id: proven.apiKeyId,
      until: proven.until,
      cidrs: proven.cidrs,
    });
  }

  /** The tail of every login, whatever its way in: a session started (`console`: the web console's), a token of it issued. */
  async issue(
    user: User,
    realm: RealmName,
    ctx: RequestContext,
    ttlSeconds: number,
    console: boolean,
    /** The API key the login presented: the session names it, its tokens carry it (and end with it) and its addresses. */
    apiKey?: { id: string; until?: Date | undefined; cidrs?: readonly string[] | undefined },
    /** When its second factor was proven (seconds); a token for enrolling one only. */
    second: { mfaAt?: number | undefined; enrolOnly?: boolean } = {},
  ): Promise<string> {
    const session = await this.deps.sessions.start(
      user,
      realm,
      ctx,
      console,
      ttlSeconds,
      undefined,
      apiKey?.id ?? null,
    );
    if (apiKey && !(await this.deps.keyStands(apiKey.id, apiKey.until, apiKey.cidrs))) {
      await this.deps.sessions.endOne(session.sid);
      throw new ApiKeyRefusedError(
        'invalid_api_key',
        'This API key was revoked or changed during the login: log in again',
      );
    }
    // A token for enrolling only carries no role: a service that reads its roles gives it nothing.
    const holder = second.enrolOnly ? { ...user, rights: [], resources: [] } : user;
    return this.deps.issuer.issue(holder, session.ttl, {
      ...session,
      ...(apiKey && { apiKeyId: apiKey.id }),
      ...(apiKey?.cidrs && { cidrs: apiKey.cidrs }),
      ...(second.mfaAt !== undefined && { mfaAt: second.mfaAt }),
      ...(second.enrolOnly && { enrolOnly: true }),
    });
  }

  /**
   * POST /v1/users/authorize/mfa: the second step of a login whose first asked for it — the
   * token the first step would have given, its second factor's time in it (mfa_at).
   */
  async completeSecondStep(answer: SecondStepAnswer, ctx: RequestContext): Promise<string> {
    const passed = await this.deps.secondStep.pass(answer, ctx);
    const { user, realm } = passed;
    await this.recorded(user, realm, ctx, { mfa: passed.method });
    return this.issue(user, realm, ctx, passed.ttlSeconds, passed.console, undefined, {
      mfaAt: Math.floor(this.deps.clock() / 1000),
    });
  }

  /**
   * A login's proof checked by the chain, the login recorded and audited: the user it proves and
   * how (a token is the caller's to issue). A password of a user with a second factor is the
   * first step only: refused with the second's challenge (MfaRequiredError); `enrolOnly`: its
   * token is for enrolling the second factor a role requires.
   */
  async prove(
    proof: Proof,
    ctx: RequestContext,
    asked: Asked = { ttlSeconds: 300, console: false },
  ): Promise<Authenticated & { enrolOnly?: boolean }> {
    const deadline = Deadline.after(this.deps.loginTimeoutMs);
    const proven = await this.deps.chain.authenticate(proof, ctx, { purpose: 'login', deadline });
    const { user, realm } = proven;
    const second = proven.byPassword ? secondFactorOf(user) : undefined;
    if (second === 'challenge') throw await this.deps.secondStep.challenge(user, realm, ctx, asked);
    await this.recorded(
      user,
      realm,
      ctx,
      { ...(proven.apiKeyId && { target: `api_key ${proven.apiKeyId}` }) },
      deadline,
    );
    return second === 'enrol' ? { ...proven, enrolOnly: true } : proven;
  }

  /** A login that ended in a token: its time recorded, its audit line written. */
  private async recorded(
    user: User,
    realm: RealmName,
    ctx: RequestContext,
    extra: Pick<AuditRecord, 'target' | 'mfa'>,
    deadline = Deadline.after(this.deps.loginTimeoutMs),
  ): Promise<void> {
    await deadline.race(
      this.deps.users.recordLogin(user.uid, new Date(this.deps.clock())),
      () => new StoreUnavailableError('no answer within the login deadline'),
    );
    this.deps.audit.record(ctx, {
      event: 'authorize',
      outcome: 'success',
      ...actorOf(user),
      uid: user.uid,
      username: user.username,
      realm,
      ...(user.certificateSubjectLine && { subject: user.certificateSubjectLine }),
      ...extra,
    });
  }

  /**
   * POST /v1/users/refresh_jwt: a valid token of a user who may still log in — as its realm
   * sees it now — renewed, within its session's lifetime (session_expired past it).
   */
  async refresh(principal: Principal, ttlSeconds: number, ctx: RequestContext): Promise<string> {
    const { users, chain, policy, audit, issuer, clock } = this.deps;
    // A key's token would come back with every right of its owner: its holder logs in with the key again instead.
    // A token for enrolling only is not renewed into another: its holder logs in again once it has a second factor.
    if (principal.token?.mfa_enrol) throw new MfaEnrolmentRequiredError();
    if (principal.apiKeyId)
      throw new InvalidRequestError(
        'A token issued for an API key is not renewed: log in with the key again (POST /v1/users/authorize)',
      );
    const current = await users.getByUid(principal.uid);
    if (!current) throw new InvalidTokenError('The user of this token no longer exists');
    const now = new Date(clock());
    if (current.lockedUntil && isLocked(current, now))
      throw new AccountLockedError(unlocksInSeconds(current.lockedUntil, now));
    if (isPasswordExpired(current, await policy.get(), now)) throw new PasswordExpiredError();
    // A token of a password login got without the second factor its user now has (or its role now requires) is not
    // renewed: it lives to its exp, and the next one takes both steps.
    const second = secondFactorOf(current);
    // A role that requires a factor the user no longer has (reset since): no renewal whatever the token took.
    const unproven = second === 'enrol' || principal.token?.mfa_at === undefined;
    if (second && unproven && (current.realm === 'local' || current.realm === 'ldap'))
      throw second === 'enrol'
        ? new MfaEnrolmentRequiredError()
        : new MfaRequiredError(
            'This token was got without the second factor this user now has: log in again (POST /v1/users/authorize, then /v1/users/authorize/mfa)',
          );
    // Its directory groups read again, its certificate login still on: a user its realm no longer lets in is not renewed.
    const user = await chain.refresh(current, Deadline.after(this.deps.loginTimeoutMs));
    if (!user) throw new InvalidTokenError('This user can no longer log in the way it did');
    const session = await this.deps.sessions.renew(principal.token!, user, user.realm, ctx, ttlSeconds);
    audit.record(ctx, {
      event: 'refresh',
      outcome: 'success',
      ...actorOf(user),
      uid: user.uid,
      username: user.username,
      realm: user.realm,
    });
    // Its second factor's time carried on: a refresh proves no factor anew.
    const mfaAt = principal.token?.mfa_at;
    return issuer.issue(user, session.ttl, mfaAt === undefined ? session : { ...session, mfaAt });
  }

  /** POST /v1/users/logout: ends the presented token and its session everywhere. */
  async logout(principal: Principal, ctx: RequestContext): Promise<void> {
    if (principal.token) {
      await this.deps.revocations.revokeToken(principal.token.jti, new Date(principal.token.exp * 1000));
      await this.deps.sessions.endOwn(principal.token);
    }
    this.deps.audit.record(ctx, {
      event: 'logout',
      outcome: 'success',
      ...actorOf(principal),
      uid: principal.uid,
      username: principal.username,
    });
  }
}
