import { currentDeadline, within } from '../deadline.js';
import { GuardUnavailableError } from '../errors.js';
import type { LoginGuard } from './login-guard.js';

/** The longest a call to the shared guard may take when the work around it has no deadline. */
const CALL_MS = 2000;

/**
 * The shared guard with a policy for when it cannot be reached — refused, or answering
 * nothing within the time left to the login. Fail closed (no fallback, the default): logins
 * answer 503 rather than let a brute force through uncounted. Fail open: this node counts
 * on its own until the shared guard is back.
 */
export class ResilientLoginGuard implements LoginGuard {
  constructor(
    private readonly shared: LoginGuard,
    private readonly fallback: LoginGuard | null,
    private readonly onError: (err: unknown) => void,
  ) {}

  reserve(key: string, attemptId: string, threshold: number, leaseMs: number, resetAt?: number) {
    return this.either((g) => g.reserve(key, attemptId, threshold, leaseMs, resetAt));
  }

  settle(key: string, attemptId: string, failed: boolean, windowMs: number) {
    return this.either((g) => g.settle(key, attemptId, failed, windowMs));
  }

  release(key: string, attemptId: string) {
    return this.either((g) => g.release(key, attemptId));
  }

  clear(key: string) {
    return this.either((g) => g.clear(key));
  }

  private async either<T>(call: (guard: LoginGuard) => Promise<T>): Promise<T> {
    try {
      const ms = currentDeadline()?.remaining() ?? CALL_MS;
      return await within(call(this.shared), ms, () => new Error('no answer from the shared guard within the time left'));
    } catch (err) {
      this.onError(err);
      if (!this.fallback) throw new GuardUnavailableError();
      return call(this.fallback);
    }
  }
}
