import { createHash, randomUUID } from 'node:crypto';
import type { AuditLog, RequestContext } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import type { Deadline } from '../deadline.js';
import { AccountLockedError, TryAgainError } from '../errors.js';
import type { Policy } from '../policy/policy.js';
import { outsideUnit } from '../unit-of-work.js';
import { isLocked, LOCKED_UNTIL_UNLOCKED, type User, unlocksInSeconds } from '../users/user.js';
import type { UserStore } from '../users/user-store.js';
import type { LoginGuard } from './login-guard.js';

/** How often the first in a user's line asks again (for leases held by other nodes). */
const POLL_MS = 10;
/** A lease outlives its login's deadline by this much, for a check that began just in time. */
const LEASE_MARGIN_MS = 1000;
/** Logins of one user that may wait on one node for a lease; more answer 503 at once. */
const MAX_WAITING = 64;

export interface Attempt {
  /** What the failures are counted under: lockoutKey's. */
  key: string;
  /** The account, when the login names one: it is what gets locked. */
  user?: User;
  policy: Policy;
  ctx: RequestContext;
  deadline: Deadline;
  /**
   * A count of its own (wrong second factors): the account's lock reset (lockResetAt, which a
   * password change moves) does not end it; only an unlock of everything does.
   */
  ownCount?: boolean;
}

/**
 * Failures count per account, whichever of its logins (name, email, any spelling) was
 * typed; a login that names no account counts under its own key, apart, so that guesses at
 * a name nobody has yet are not held against the account made later under it.
 */
export function lockoutKey(account: User | undefined, login: string): string {
  // A name nobody has is kept as its digest: a key of fixed size, whatever a client typed.
  return account ? `uid:${account.uid}` : `name:${createHash('sha256').update(login).digest('base64url')}`;
}

/**
 * Where wrong second factors of an account count: apart from its passwords' failures, which a
 * right password clears — a password known to somebody must not wipe the count of its codes.
 */
export const secondFactorKey = (account: User): string => `mfa:${lockoutKey(account, '')}`;

/** One login waiting for a lease; `wake` makes it ask again now. */
interface Waiter {
  wake(): void;
}

/**
 * The lockout policy around one password check: refuses a locked user at once (no hash,
 * no queue), leases one of the failures still allowed, runs the check, and counts its
 * outcome — locking the user when the failures reach the threshold. Unknown names are
 * counted too (apart from any account), so they answer like known ones. Leases expire a little after the login's
 * deadline, so a process that dies mid-check blocks nobody for longer.
 *
 * Logins of a user whose remaining failures are all leased wait in a line on this node:
 * only the first asks the guard again (every POLL_MS, for other nodes' leases), and a lease
 * that ends here wakes it at once; whoever leaves the line wakes the next.
 */
export class Lockout {
  private readonly lines = new Map<string, Waiter[]>();

  constructor(
    private readonly guard: LoginGuard,
    private readonly users: UserStore,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  /**
   * Runs `check` under the lockout; what it answers counts as a failure when `failed` says
   * so. Throws AccountLockedError, or TryAgainError when no lease came free before the deadline.
   */
  async guarded<T>(a: Attempt, check: () => Promise<T>, failed: (result: T) => boolean): Promise<T> {
    if (a.user?.lockedUntil) {
      const now = new Date(this.clock());
      if (isLocked(a.user, now)) throw new AccountLockedError(unlocksInSeconds(a.user.lockedUntil, now));
      // The lock has run out: lifted outside the request's unit, as the lock was made (a refusal rolls the unit back).
      await outsideUnit(() => this.unlock(a.user!));
    }
    const threshold = a.policy.login_lockout_threshold;
    if (threshold === 0) return check();
    const { key } = a;
    const lease = randomUUID();
    await this.lease(a, key, lease, threshold);
    let result: T;
    try {
      result = await check();
    } catch (err) {
      await this.guard.release(key, lease).catch(() => {}); // it expires by itself otherwise
      this.lines.get(key)?.[0]?.wake();
      throw err;
    }
    const failure = failed(result);
    const failures = await this.guard.settle(key, lease, failure, a.policy.login_lockout_counter_reset_after * 1000);
    this.lines.get(key)?.[0]?.wake();
    if (failure && a.user && failures >= threshold) await this.lock(a);
    return result;
  }

  /**
   * Lifts the account's lock and forgets its failures; `passwords`: those of its passwords only
   * (a user's own change of its password, which anyone who knows it can make, must not forget
   * the wrong codes of its second factor).
   */
  async unlock(user: User, what: 'all' | 'passwords' = 'all'): Promise<void> {
    await this.users.unlock(user.uid, new Date(this.clock()));
    await this.guard.clear(lockoutKey(user, ''));
    if (what === 'all') await this.guard.clear(secondFactorKey(user));
  }

  private async lease(a: Attempt, key: string, lease: string, threshold: number): Promise<void> {
    const leaseMs = Math.ceil(a.deadline.remaining()) + LEASE_MARGIN_MS;
    const resetAt = a.ownCount ? undefined : a.user?.lockResetAt?.getTime();
    const reserve = async () => {
      const answer = await this.guard.reserve(key, lease, threshold, leaseMs, resetAt);
      if (answer === 'locked') {
        if (a.user) await this.lock(a);
        const duration = a.policy.login_lockout_duration; // unknown names answer alike
        throw new AccountLockedError(duration === 0 ? undefined : duration);
      }
      return answer === 'ok';
    };
    let line = this.lines.get(key);
    if (!line && (await reserve())) return; // nobody waits: the common case
    line = this.lines.get(key) ?? [];
    if (line.length >= MAX_WAITING) throw busy();
    this.lines.set(key, line);
    const me: Waiter = { wake: () => {} };
    line.push(me);
    try {
      for (;;) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(
            resolve,
            line[0] === me ? Math.min(POLL_MS, a.deadline.remaining()) : a.deadline.remaining(),
          );
          me.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        if (line[0] === me && (await reserve())) return;
        if (a.deadline.expired()) throw busy();
      }
    } finally {
      line.splice(line.indexOf(me), 1);
      if (line.length === 0) this.lines.delete(key);
      else line[0]!.wake();
    }
  }

  /** The account locked, with its event: outside the unit of the request that failed, which its refusal rolls back. */
  private lock(a: Attempt): Promise<void> {
    return outsideUnit(async () => {
      const user = a.user!;
      const duration = a.policy.login_lockout_duration;
      const until = duration === 0 ? LOCKED_UNTIL_UNLOCKED : new Date(this.clock() + duration * 1000);
      const now = new Date(this.clock());
      if (!(await this.users.lock(user.uid, until, now))) return; // a parallel attempt locked it
      this.audit.record(a.ctx, { event: 'lockout', outcome: 'success', username: user.username, uid: user.uid });
    });
  }
}

function busy(): TryAgainError {
  return new TryAgainError('Too many logins of this user at once; try again shortly');
}
