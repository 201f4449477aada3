import type { RealmName } from '../../access/realm-name.js';
import type { Clock } from '../../clock.js';
import type { Deadline } from '../../deadline.js';
import { TryAgainError } from '../../errors.js';
import type { PolicyService } from '../../policy/policy-service.js';
import type { RevocationList } from '../../tokens/revocation-list.js';
import { isLocked, type User } from '../../users/user.js';
import type { UserReadCache } from '../../users/user-read-cache.js';
import type { Attempt, NotMine, Proof, Realm, RememberedAs, Success, Verdict } from '../realms/realm.js';
import type { Remembered, VerifiedCredentials } from '../verified-credentials.js';
import { inTime } from './in-time.js';

export interface RememberingDeps {
  verified: VerifiedCredentials;
  userReads: Pick<UserReadCache, 'fresh' | 'get'>;
  revocations: Pick<RevocationList, 'knownRevoked' | 'isRevoked'>;
  policy: Pick<PolicyService, 'get'>;
  clock: Clock;
}

/**
 * The verified-credentials cache and single flight around a realm (the model:
 * Elasticsearch's CachingUsernamePasswordRealm): a success is remembered (a salted hash of
 * the proof, never the secret) and admitted again while the account as this process has
 * loaded it — read within the second, its token epoch, not locked — still stands, without
 * waiting (`known`) or after loading those facts; logins with the same credentials in flight
 * wait for the one verification under way. `rememberAs` says what a proof of its kind is
 * remembered under (undefined: never remembered, asked every time).
 */
export class RememberingRealm implements Realm {
  private readonly inFlight = new Map<string, { result: Promise<Verdict>; deadline: Deadline; attempt: Attempt }>();

  constructor(
    private readonly inner: Realm,
    private readonly rememberAs: (proof: Proof) => RememberedAs | undefined,
    private readonly deps: RememberingDeps,
  ) {}

  supports(proof: Proof): Promise<boolean> {
    return this.inner.supports(proof);
  }

  refresh(user: User, deadline: Deadline): Promise<User | undefined | NotMine> {
    return this.inner.refresh(user, deadline);
  }

  lookup(name: string, deadline: Deadline): Promise<RealmName | undefined> {
    return this.inner.lookup(name, deadline);
  }

  /** Remembered credentials of an account as this process has loaded it (read within the second, its epoch known), not locked. */
  known(proof: Proof): Success | undefined {
    const as = this.rememberAs(proof);
    const remembered = as && this.deps.verified.recall(as.key, as.secret);
    const user = remembered && this.deps.userReads.fresh(remembered.uid)?.user;
    if (!remembered || !user || !this.admits(remembered, user, as) || isLocked(user, new Date(this.deps.clock())))
      return undefined;
    return { outcome: 'success', user, realm: remembered.realm, remembered: true, byPassword: remembered.byPassword };
  }

  async authenticate(proof: Proof, attempt: Attempt): Promise<Verdict> {
    const as = this.rememberAs(proof);
    if (!as) return this.inner.authenticate(proof, attempt);
    return this.known(proof) ?? (await this.recall(proof, as, attempt.deadline)) ?? this.verifyOnce(proof, as, attempt);
  }

  /** Remembered credentials whose facts are not loaded yet: loaded, then recognized (or not) as `known` does. */
  private async recall(proof: Proof, as: RememberedAs, deadline: Deadline): Promise<Success | undefined> {
    const remembered = this.deps.verified.recall(as.key, as.secret);
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
    return this.known(proof);
  }

  /** Remembered credentials still prove the account as it is now: the same token epoch, and (a login) still one of its logins. */
  private admits(remembered: Remembered, user: User, as: RememberedAs): boolean {
    if (
      user.tokenEpoch !== remembered.epoch ||
      this.deps.revocations.knownRevoked(user.uid, remembered.epoch) !== false
    )
      return false;
    return remembered.anyName || !as.login || user.logins.includes(as.key);
  }

  /**
   * One verification a set of credentials at a time: logins with the same ones wait for the
   * one under way, within their own deadlines, while it has at least half their time left;
   * else they verify on their own.
   */
  private async verifyOnce(proof: Proof, as: RememberedAs, attempt: Attempt): Promise<Verdict> {
    const { deadline } = attempt;
    const tag = this.deps.verified.tag(as.key, as.secret);
    const under = this.inFlight.get(tag);
    if (under && under.deadline.remaining() >= deadline.remaining() / 2) {
      const verdict = await deadline.race(
        under.result,
        () => new TryAgainError('The same credentials are being checked; try again shortly'),
      );
      const { realm, reason } = under.attempt.trail;
      Object.assign(attempt.trail, { realm, reason });
      // Proven by the other login's check (which recorded what proving it changed): no verification of its own.
      return verdict.outcome === 'success' ? { ...verdict, changed: undefined, remembered: true } : verdict;
    }
    const result = this.verify(proof, as, attempt);
    const mine = { result, deadline, attempt };
    this.inFlight.set(tag, mine);
    try {
      return await result;
    } finally {
      if (this.inFlight.get(tag) === mine) this.inFlight.delete(tag);
    }
  }

  private async verify(proof: Proof, as: RememberedAs, attempt: Attempt): Promise<Verdict> {
    const verdict = await this.inner.authenticate(proof, attempt);
    if (verdict.outcome === 'success') {
      const { user, realm, vouchesForName, byPassword, rememberMs } = verdict;
      const how = { anyName: vouchesForName === true, byPassword: byPassword === true };
      this.deps.verified.remember(as.key, as.secret, user, realm, how, rememberMs);
    }
    return verdict;
  }
}
