import { performance } from 'node:perf_hooks';

/**
 * Counts failed logins per normalized username so that lockout is exact under concurrency:
 * an attempt takes a lease before its password is verified, and no more leases are out
 * than failures are still allowed. A right password releases its lease, so parallel
 * successful logins never lock anyone; they wait for a lease instead. A lease expires by
 * itself after `leaseMs`: an attempt whose process died stops holding it.
 */
export interface LoginGuard {
  /**
   * `locked`: the failures have reached the threshold. `wait`: the remaining failures are
   * all spoken for by leases out. `ok`: a lease is taken; settle or release it. Failures
   * whose window began before `resetAt` (ms) are forgotten first: an unlock, perhaps made
   * by another process.
   */
  reserve(
    key: string,
    attemptId: string,
    threshold: number,
    leaseMs: number,
    resetAt?: number,
  ): Promise<'ok' | 'wait' | 'locked'>;
  /** Ends a lease with the outcome of its check; returns the failures counted in the current window. */
  settle(key: string, attemptId: string, failed: boolean, windowMs: number): Promise<number>;
  /** Gives a lease back without an outcome (no password was checked). */
  release(key: string, attemptId: string): Promise<void>;
  /** Forgets a key's failures (unlock, password reset, lock expiry). */
  clear(key: string): Promise<void>;
}

interface Entry {
  failures: number;
  /** Lease id → when it expires (monotonic ms). */
  leases: Map<string, number>;
  /** When the first failure of the window was counted. */
  since: number;
  resetAt: number;
}

const SWEEP_ABOVE = 10_000;

/** The guard of a single process. */
export class MemoryLoginGuard implements LoginGuard {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly clock: () => number) {}

  async reserve(
    key: string,
    attemptId: string,
    threshold: number,
    leaseMs: number,
    resetAt = 0,
  ): Promise<'ok' | 'wait' | 'locked'> {
    const entry = this.entry(key);
    if (entry.failures > 0 && entry.since < resetAt) entry.failures = 0;
    if (entry.failures >= threshold) return 'locked';
    if (entry.failures + entry.leases.size >= threshold) return 'wait';
    entry.leases.set(attemptId, performance.now() + leaseMs);
    return 'ok';
  }

  async settle(key: string, attemptId: string, failed: boolean, windowMs: number): Promise<number> {
    const entry = this.entry(key);
    entry.leases.delete(attemptId);
    if (failed) {
      if (entry.failures === 0) {
        entry.since = this.clock();
        entry.resetAt = entry.since + windowMs;
      }
      entry.failures++;
    } else {
      entry.failures = 0;
    }
    this.forgetIfIdle(key, entry);
    return entry.failures;
  }

  async release(key: string, attemptId: string): Promise<void> {
    const entry = this.entries.get(key);
    entry?.leases.delete(attemptId);
    if (entry) this.forgetIfIdle(key, entry);
  }

  async clear(key: string): Promise<void> {
    const entry = this.entries.get(key);
    if (entry) entry.failures = 0;
    if (entry) this.forgetIfIdle(key, entry);
  }

  private forgetIfIdle(key: string, entry: Entry): void {
    if (entry.failures === 0 && entry.leases.size === 0) this.entries.delete(key);
  }

  private entry(key: string): Entry {
    const now = this.clock();
    if (this.entries.size > SWEEP_ABOVE) this.sweep(now);
    let entry = this.entries.get(key);
    if (!entry) this.entries.set(key, (entry = { failures: 0, leases: new Map(), since: 0, resetAt: 0 }));
    if (entry.failures > 0 && entry.resetAt <= now) entry.failures = 0;
    const monotonic = performance.now();
    for (const [id, expires] of entry.leases) if (expires <= monotonic) entry.leases.delete(id);
    return entry;
  }

  private sweep(now: number): void {
    const monotonic = performance.now();
    for (const [key, e] of this.entries) {
      for (const [id, expires] of e.leases) if (expires <= monotonic) e.leases.delete(id);
      if (e.leases.size === 0 && e.resetAt <= now) this.entries.delete(key);
    }
  }
}
