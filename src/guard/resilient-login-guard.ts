import { GuardUnavailableError } from '../errors.js';
import type { LoginGuard } from './login-guard.js';

/**
 * The shared guard with a policy for when it cannot be reached — refused, or answering
 * nothing within the Redis client's command timeout (1 s). Fail closed (no fallback, the default): logins
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
      return await call(this.shared);
    } catch (err) {
      this.onError(err);
      if (!this.fallback) throw new GuardUnavailableError();
      return call(this.fallback);
    }
  }
}
