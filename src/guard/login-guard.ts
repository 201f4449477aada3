/**
 * Counts failed logins per normalized username so that lockout is exact under concurrency:
 * an attempt reserves a slot before its password is verified, and no more attempts are in
 * flight than failures are still allowed. A right password releases its slot, so parallel
 * successful logins never lock anyone; they wait for a slot instead.
 */
export interface LoginGuard {
  /**
   * `locked`: the failures have reached the threshold. `wait`: the remaining failures are
   * all spoken for by attempts in flight. `ok`: a slot is reserved; settle it. Failures
   * whose window began before `resetAt` (ms) are forgotten first: an unlock, perhaps made
   * by another process.
   */
  reserve(key: string, attemptId: string, threshold: number, resetAt?: number): Promise<'ok' | 'wait' | 'locked'>;
  /** Ends a reserved attempt; returns the failures counted in the current window. */
  settle(key: string, attemptId: string, failed: boolean, windowMs: number): Promise<number>;
  /** Forgets a key's failures (unlock, password reset, lock expiry). */
  clear(key: string): Promise<void>;
}

interface Entry {
  failures: number;
  inFlight: number;
  /** When the first failure of the window was counted. */
  since: number;
  resetAt: number;
}

const SWEEP_ABOVE = 10_000;

/** The guard of a single process. */
export class MemoryLoginGuard implements LoginGuard {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly clock: () => number) {}

  async reserve(key: string, _attemptId: string, threshold: number, resetAt = 0): Promise<'ok' | 'wait' | 'locked'> {
    const entry = this.entry(key);
    if (entry.failures > 0 && entry.since < resetAt) entry.failures = 0;
    if (entry.failures >= threshold) return 'locked';
    if (entry.failures + entry.inFlight >= threshold) return 'wait';
    entry.inFlight++;
    return 'ok';
  }

  async settle(key: string, _attemptId: string, failed: boolean, windowMs: number): Promise<number> {
    const entry = this.entry(key);
    entry.inFlight = Math.max(0, entry.inFlight - 1);
    if (failed) {
      if (entry.failures === 0) {
        entry.since = this.clock();
        entry.resetAt = entry.since + windowMs;
      }
      entry.failures++;
    } else {
      entry.failures = 0;
    }
    if (entry.failures === 0 && entry.inFlight === 0) this.entries.delete(key);
    return entry.failures;
  }

  async clear(key: string): Promise<void> {
    const entry = this.entries.get(key);
    if (entry) entry.failures = 0;
    if (entry?.inFlight === 0) this.entries.delete(key);
  }

  private entry(key: string): Entry {
    const now = this.clock();
    if (this.entries.size > SWEEP_ABOVE) this.sweep(now);
    let entry = this.entries.get(key);
    if (!entry) this.entries.set(key, (entry = { failures: 0, inFlight: 0, since: 0, resetAt: 0 }));
    if (entry.failures > 0 && entry.resetAt <= now) entry.failures = 0;
    return entry;
  }

  private sweep(now: number): void {
    for (const [key, e] of this.entries) if (e.inFlight === 0 && e.resetAt <= now) this.entries.delete(key);
  }
}
