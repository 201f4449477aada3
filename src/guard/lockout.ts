import { randomUUID } from 'node:crypto';
import type { AuditLog, RequestContext } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import { AccountLockedError, TryAgainError } from '../errors.js';
import type { Policy } from '../policy/policy.js';
import { isLocked, LOCKED_UNTIL_UNLOCKED, type User } from '../users/user.js';
import type { UserStore } from '../users/user-store.js';
import { usernameKey } from '../users/username.js';
import type { LoginGuard } from './login-guard.js';

/** How long an attempt waits for a slot while others for the same user are in flight. */
const MAX_WAIT_MS = 5000;
const WAIT_STEP_MS = 5;

export interface Attempt {
  key: string;
  id: string;
  user?: User;
  policy: Policy;
  ctx: RequestContext;
}

/**
 * The lockout policy around one password verification: refuses locked users without a hash
 * check, reserves a slot in the guard, and locks the user when the failures reach the
 * threshold. Unknown usernames are counted too, so they answer like known ones.
 */
export class Lockout {
  constructor(
    private readonly guard: LoginGuard,
    private readonly users: UserStore,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  attempt(username: string, user: User | undefined, policy: Policy, ctx: RequestContext): Attempt {
    return { key: usernameKey(username), id: randomUUID(), user, policy, ctx };
  }

  /** Before the hash check. Throws AccountLockedError, or TryAgainError after a long wait. */
  async begin(a: Attempt): Promise<void> {
    if (a.user && a.user.lockedUntil) {
      if (isLocked(a.user, new Date(this.clock()))) throw new AccountLockedError();
      await this.unlock(a.user); // the lock has run out
    }
    const threshold = a.policy.login_lockout_threshold;
    if (threshold === 0) return;
    const deadline = Date.now() + MAX_WAIT_MS;
    for (;;) {
      const answer = await this.guard.reserve(a.key, a.id, threshold, a.user?.lockResetAt?.getTime());
      if (answer === 'ok') return;
      if (answer === 'locked') {
        if (a.user) await this.lock(a);
        throw new AccountLockedError();
      }
      if (Date.now() > deadline) throw new TryAgainError();
      await new Promise((r) => setTimeout(r, WAIT_STEP_MS));
    }
  }

  /** After the hash check. */
  async end(a: Attempt, failed: boolean): Promise<void> {
    const threshold = a.policy.login_lockout_threshold;
    if (threshold === 0) return;
    const failures = await this.guard.settle(a.key, a.id, failed, a.policy.login_lockout_counter_reset_after * 1000);
    if (failed && a.user && failures >= threshold) await this.lock(a);
  }

  async unlock(user: User): Promise<void> {
    await this.users.unlock(user.uid, new Date(this.clock()));
    await this.guard.clear(usernameKey(user.username));
  }

  private async lock(a: Attempt): Promise<void> {
    const user = a.user!;
    const duration = a.policy.login_lockout_duration;
    const until = duration === 0 ? LOCKED_UNTIL_UNLOCKED : new Date(this.clock() + duration * 1000);
    const now = new Date(this.clock());
    if (!(await this.users.lock(user.uid, until, now))) return; // a parallel attempt locked it
    this.audit.record(a.ctx, { event: 'lockout', outcome: 'success', username: user.username, uid: user.uid });
  }
}
