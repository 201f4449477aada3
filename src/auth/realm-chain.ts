import { setTimeout as sleep } from 'node:timers/promises';
import type { AuditLog, RequestContext } from '../audit/audit-log.js';
import { subjectLine } from '../certs/client-certificate.js';
import type { Clock } from '../clock.js';
import { Deadline } from '../deadline.js';
import {
  AccountLockedError,
  InvalidCredentialsError,
  MissingCredentialsError,
  PasswordExpiredError,
  SsoRefusedError,
  StoreUnavailableError,
  TryAgainError,
} from '../errors.js';
import type { EventHub } from '../events.js';
import type { ClientThrottle } from '../guard/client-throttle.js';
import { type Lockout, lockoutKey } from '../guard/lockout.js';
import type { PolicyService } from '../policy/policy-service.js';
import type { RevocationList } from '../tokens/revocation-list.js';
import { failureBudgetMs } from '../users/match-password.js';
import type { PasswordHasher } from '../users/password-hasher.js';
import { isLocked, isPasswordExpired, realmOf, type User, unlocksInSeconds } from '../users/user.js';
import type { UserReadCache } from '../users/user-read-cache.js';
import type { UserStore } from '../users/user-store.js';
import { usernameKey } from '../users/username.js';
import type { CertificateProof, PasswordProof, Proof, Realm, RealmName, SamlProof, Verdict } from './realms/realm.js';
import type { Remembered, VerifiedCredentials } from './verified-credentials.js';

/** Who a proof showed the caller to be, and which realm said so. */
export interface Authenticated {
  user: User;
  realm: RealmName;
}

export interface ChainDeps {
  /** In the order they are asked (realms/realm.ts's REALMS). */
  realms: readonly Realm[];
  users: Pick<UserStore, 'findByUsername'>;
  userReads: Pick<UserReadCache, 'fresh' | 'get'>;
  revocations: Pick<RevocationList, 'knownRevoked' | 'isRevoked'>;
  verified: VerifiedCredentials;
  throttle: ClientThrottle;
  lockout: Lockout;
  policy: PolicyService;
  /** The work of a wrong password for a name that no realm knows. */
  hasher: Pick<PasswordHasher, 'verifyDummy' | 'typicalMs'>;
  audit: AuditLog;
  events: EventHub;
  clock: Clock;
  /** The one deadline of a login: every wait inside it gets the time that is left. */
  loginTimeoutMs: number;
}

export interface AuthenticateOptions {
  /** 'login': POST /v1/users/authorize; 'request': credentials on any other request. */
  purpose: 'login' | 'request';
  /** For the change of an expired password, which needs the old one proven. */
  allowExpired?: boolean;
  deadline?: Deadline;
}

/** What a refusal's audit line says besides its code, learnt on the way. */
interface Trail {
  realm?: RealmName;
  reason?: string;
}

/**
 * The realm chain: every proof of identity (a password, a directory password, a client
 * certificate) passes the same guards, once, whichever realm checks it:
 *
 * 1. the verified-credentials cache — a success remembered, admitted over facts this
 *    process has loaded (the account read within the second, its token epoch, the policy),
 *    without waiting (`known`), or after loading them;
 * 2. logins with the same credentials in flight wait for the one verification under way;
 * 3. the account that the login names — every alias of it, in any spelling — found once;
 * 4. the client's throttle, then the lockout: a locked account refused at once, one lease of
 *    the failures still allowed, counted per account;
 * 5. the account's realm (or, for a name no account has, each realm in order) checks the
 *    proof; a name no realm takes costs the work of a wrong password all the same;
 * 6. every wrong secret answered no sooner than any other (the failure budget), every
 *    refusal audited with its realm, every success counted by realm.
 *
 * All of it within one deadline.
 */
export class RealmChain {
  private readonly inFlight = new Map<string, { result: Promise<Authenticated>; deadline: Deadline }>();

  constructor(private readonly deps: ChainDeps) {}

  /**
   * Remembered credentials of an account whose facts this process has loaded, without
   * waiting; undefined when anything is not known (or does not admit them): `authenticate`
   * then decides, and says why.
   */
  known(proof: Proof): Authenticated | undefined {
    const rules = this.deps.policy.fresh();
    const found = rules && this.recognized(proof);
    return found && !isPasswordExpired(found.user, rules, new Date(this.deps.clock())) ? found : undefined;
  }

  /** Who the proof shows the caller to be, through every guard; throws the refusal with its code. */
  async authenticate(proof: Proof, ctx: RequestContext, options: AuthenticateOptions): Promise<Authenticated> {
    const deadline = options.deadline ?? Deadline.after(this.deps.loginTimeoutMs);
    const trail: Trail = {};
    try {
      // An identity provider's answer is checked each time, alone: never remembered, never shared with another in flight (each is used once).
      if (proof.kind === 'saml') return await this.verify(proof, ctx, deadline, options, trail);
      const found =
        this.recognized(proof) ??
        (await this.recall(proof, deadline)) ??
        (await this.verifyOnce(proof, ctx, deadline, options, trail));
      const rules = this.deps.policy.fresh() ?? (await inTime(deadline, this.deps.policy.get()));
      // A right password that has expired: said only now, after it was proven right.
      if (!options.allowExpired && isPasswordExpired(found.user, rules, new Date(this.deps.clock())))
        throw new PasswordExpiredError();
      return found;
    } catch (err) {
      const about =
        proof.kind === 'password'
          ? { username: proof.username }
          : proof.kind === 'certificate'
            ? { subject: subjectLine(proof.certificate.leaf) }
            : {};
      const reason =
        trail.reason ?? (err as { auditReason?: string }).auditReason ?? (err as { code?: string }).code ?? 'error';
      this.deps.audit.record(ctx, {
        event: options.purpose === 'login' ? 'authorize' : 'authenticate',
        outcome: 'failure',
        ...about,
        reason,
        ...(trail.realm && { realm: trail.realm }),
      });
      throw err;
    }
  }

  /** A user's current password, confirmed as a login's would be, for a change of it (an expired one confirms). */
  async confirmPassword(username: string, password: string, ctx: RequestContext): Promise<User> {
    return (
      await this.authenticate({ kind: 'password', username, password }, ctx, { purpose: 'request', allowExpired: true })
    ).user;
  }

  /** The user as its realm sees it now, at its token's refresh; undefined when it may no longer log in. */
  refresh(user: User, deadline: Deadline): Promise<User | undefined> {
    const realm = this.deps.realms.find((r) => r.name === realmOf(user));
    return realm ? realm.refresh(user, deadline) : Promise.resolve(undefined);
  }

  /** The realm (other than this store's own) that knows somebody by this name without an account yet: a local name must not take it. */
  async nameTaken(name: string): Promise<RealmName | undefined> {
    const deadline = Deadline.after(this.deps.loginTimeoutMs);
    for (const realm of this.deps.realms) if (await realm.lookup(name, deadline)) return realm.name;
    return undefined;
  }

  /** Remembered credentials of an account as this process has loaded it (read within the second, its epoch known), not locked. */
  private recognized(proof: Proof): Authenticated | undefined {
    const [key, secret] = cacheKeyOf(proof);
    const remembered = this.deps.verified.recall(key, secret);
    const user = remembered && this.deps.userReads.fresh(remembered.uid)?.user;
    if (
      !remembered ||
      !user ||
      !this.admits(remembered, user, key, proof.kind) ||
      isLocked(user, new Date(this.deps.clock()))
    )
      return undefined;
    this.deps.events.emit('credentialsVerified', remembered.realm, true);
    return { user, realm: remembered.realm };
  }

  /** Remembered credentials whose facts are not loaded yet: loaded, then recognized (or not) as `known` does. */
  private async recall(proof: Proof, deadline: Deadline): Promise<Authenticated | undefined> {
    const [key, secret] = cacheKeyOf(proof);
    const remembered = this.deps.verified.recall(key, secret);
    if (!remembered) return undefined;
    const { policy, userReads, revocations } = this.deps;
    await inTime(
      deadline,
      Promise.all([
        policy.get(),
        userReads.get(remembered.uid),
        revocations.isRevoked(remembered.uid, remembered.epoch),
      ]),
    );
    return this.recognized(proof);
  }

  /** Remembered credentials still prove the account as it is now: the same token epoch, and (a password) still one of its logins. */
  private admits(remembered: Remembered, user: User, key: string, kind: Proof['kind']): boolean {
    if (
      user.tokenEpoch !== remembered.epoch ||
      this.deps.revocations.knownRevoked(user.uid, remembered.epoch) !== false
    )
      return false;
    // The directory vouched for the name it was given (an alias of the entry, say its mail), within cache_ttl.
    return kind === 'certificate' || remembered.realm === 'ldap' || user.logins.includes(key);
  }

  /**
   * One verification a set of credentials at a time (the model: Elasticsearch's caching
   * realm): logins with the same ones wait for the one under way, within their own
   * deadlines, while it has at least half their time left; else they verify on their own.
   */
  private async verifyOnce(
    proof: Proof,
    ctx: RequestContext,
    deadline: Deadline,
    options: AuthenticateOptions,
    trail: Trail,
  ): Promise<Authenticated> {
    const [key, secret] = cacheKeyOf(proof);
    const tag = this.deps.verified.tag(key, secret);
    const under = this.inFlight.get(tag);
    if (under && under.deadline.remaining() >= deadline.remaining() / 2) {
      return deadline.race(
        under.result,
        () => new TryAgainError('The same credentials are being checked; try again shortly'),
      );
    }
    const result = this.verify(proof, ctx, deadline, options, trail);
    const mine = { result, deadline };
    this.inFlight.set(tag, mine);
    try {
      return await result;
    } finally {
      if (this.inFlight.get(tag) === mine) this.inFlight.delete(tag);
    }
  }

  private async verify(
    proof: Proof,
    ctx: RequestContext,
    deadline: Deadline,
    options: AuthenticateOptions,
    trail: Trail,
  ): Promise<Authenticated> {
    const [key, secret] = cacheKeyOf(proof);
    const found =
      proof.kind === 'password'
        ? await this.verifyPassword(proof, key, ctx, deadline, trail)
        : await this.verifyPresented(proof, ctx, deadline, options, trail);
    this.deps.verified.remember(key, secret, found.user, found.realm, found.rememberMs);
    this.deps.events.emit('credentialsVerified', found.realm, false);
    if (found.changed) {
      const { uid, username } = found.user;
      this.deps.audit.record(ctx, {
        event: 'user_update',
        outcome: 'success',
        uid,
        username,
        realm: found.realm,
        ...found.changed,
      });
    }
    return { user: found.user, realm: found.realm };
  }

  private async verifyPassword(
    proof: PasswordProof,
    key: string,
    ctx: RequestContext,
    deadline: Deadline,
    trail: Trail,
  ): Promise<Success> {
    const { users, throttle, lockout, policy } = this.deps;
    // Every check in full counts toward the client's throttle (remembered credentials never do).
    await throttle.check(ctx.ip);
    const named =
      (await inTime(deadline, users.findByUsername(proof.username))) ?? (await this.accountElsewhere(proof, deadline));
    // A certificate user has no password: its name is answered as a name known nowhere (the same work, the same answer).
    const account = named && realmOf(named) !== 'certificate' ? named : undefined;
    // A login never reaches another realm's account: the account's realm alone answers for it.
    const realms = await this.realmsFor(proof, account && realmOf(account));
    const rules = await inTime(deadline, policy.get());
    const started = performance.now();
    const verdict = await lockout.guarded(
      { key: lockoutKey(account, key), user: account, policy: rules, ctx, deadline },
      () => this.ask(realms, proof, account, deadline, trail),
      (v) => v.outcome === 'refused' && v.guess,
    );
    if (verdict.outcome === 'success') {
      // Locked while its check ran, or another account than the one leased: refused all the same.
      const now = new Date(this.deps.clock());
      const { lockedUntil } = verdict.user;
      if (lockedUntil && isLocked(verdict.user, now)) throw new AccountLockedError(unlocksInSeconds(lockedUntil, now));
      return { ...verdict, realm: trail.realm! };
    }
    if (verdict.outcome === 'refused') {
      trail.reason = verdict.reason;
      // Every refusal of a password takes as long as a wrong one — for every user, whatever number of
      // passwords it holds, for a name known nowhere, for a right directory password that maps to no
      // role — so that its time tells nothing; waited out after the lease is given back.
      await this.waitOut(started, verdict.eachMs, deadline);
      throw verdict.error;
    }
    throw new InvalidCredentialsError();
  }

  /** A proof that names no account before it is checked (a client certificate, an identity provider's answer): its one realm says whose it is. */
  private async verifyPresented(
    proof: CertificateProof | SamlProof,
    ctx: RequestContext,
    deadline: Deadline,
    options: AuthenticateOptions,
    trail: Trail,
  ): Promise<Success> {
    trail.realm = proof.kind === 'certificate' ? 'certificate' : 'sso';
    const [realm] = await this.realmsFor(proof);
    if (!realm) {
      throw proof.kind === 'certificate'
        ? new MissingCredentialsError('This cluster takes no client certificates: present a token or Basic credentials')
        : new SsoRefusedError(
            'sso_refused',
            'SSO is off on this cluster: sign in with a username and password',
            'sso off',
          );
    }
    if (options.purpose === 'login') await this.deps.throttle.check(ctx.ip);
    const verdict = await realm.authenticate(proof, { deadline });
    if (verdict.outcome === 'refused') throw verdict.error;
    if (verdict.outcome !== 'success') throw new MissingCredentialsError();
    const now = new Date(this.deps.clock());
    const { user } = verdict;
    if (user.lockedUntil && isLocked(user, now)) throw new AccountLockedError(unlocksInSeconds(user.lockedUntil, now));
    return { ...verdict, realm: realm.name };
  }

  /** The account a realm says the proof names, when its login's name finds none (a directory's other name for an entry). */
  private async accountElsewhere(proof: PasswordProof, deadline: Deadline): Promise<User | undefined> {
    for (const realm of await this.realmsFor(proof)) {
      const account = await realm.account?.(proof, deadline);
      if (account) return account;
    }
    return undefined;
  }

  /** The realms that take this proof now: the account's own only, when it has one. */
  private async realmsFor(proof: Proof, owner?: RealmName): Promise<Realm[]> {
    const candidates = this.deps.realms.filter((r) => owner === undefined || r.name === owner);
    const supported = await Promise.all(candidates.map((r) => r.supports(proof)));
    return candidates.filter((_, i) => supported[i]);
  }

  /** Each realm in turn until one says the proof is its own; none: a refusal that cost what a wrong password costs. */
  private async ask(
    realms: readonly Realm[],
    proof: PasswordProof,
    account: User | undefined,
    deadline: Deadline,
    trail: Trail,
  ): Promise<Verdict> {
    for (const realm of realms) {
      const verdict = await realm.authenticate(proof, { account, deadline });
      if (verdict.outcome === 'not_mine') continue;
      trail.realm = realm.name;
      return verdict;
    }
    const started = performance.now();
    await this.deps.hasher.verifyDummy(proof.password, deadline);
    return {
      outcome: 'refused',
      error: new InvalidCredentialsError(),
      guess: true,
      reason: 'no such account',
      eachMs: performance.now() - started,
    };
  }

  private async waitOut(started: number, eachMs: number | undefined, deadline: Deadline): Promise<void> {
    const left = started + failureBudgetMs(eachMs ?? this.deps.hasher.typicalMs) - performance.now();
    await sleep(Math.max(0, Math.min(left, deadline.remaining())));
  }
}

type Success = Extract<Verdict, { outcome: 'success' }> & { realm: RealmName };

/** What a proof is remembered under, and its secret: a login's key and its password, a certificate's fingerprint (an identity provider's answer never is). */
function cacheKeyOf(proof: Proof): [key: string, secret: string] {
  if (proof.kind === 'password') return [usernameKey(proof.username), proof.password];
  return proof.kind === 'certificate' ? [`certificate:${proof.certificate.fingerprint}`, ''] : ['saml', proof.response];
}

/** A store call of a login, answered within the login's deadline or not at all. */
function inTime<T>(deadline: Deadline, call: Promise<T>): Promise<T> {
  return deadline.race(call, () => new StoreUnavailableError('no answer within the login deadline'));
}
