import { performance } from 'node:perf_hooks';
import type { Deadline } from '../deadline.js';
import { TryAgainError } from '../errors.js';

/**
 * Admission to the hashing threads by expected waiting time, not by count: `threads`
 * password checks run at once, and a further one waits in line while the wait it can
 * expect — the checks ahead of it × the time of one ÷ the threads — stays under
 * `maxWaitMs` and within its deadline. Beyond that it is refused at once (503 + Retry-After),
 * so that offered load far above capacity costs a refusal, not an ever longer queue. A
 * burst that the threads clear within the bound is served whole, however many it is.
 */
/** How many recent checks the time of one is taken from. */
const SAMPLES = 16;

export class Admission {
  private active = 0;
  private readonly queue: (() => void)[] = [];
  /**
   * The time of one check: the least of the last SAMPLES, seeded with a measured hash. A
   * check's time is measured up to when its answer is read on the event loop, so a burst
   * that keeps the loop busy inflates the checks it overlaps; the least recent one is what
   * the threads need, and it still rises within a few checks when they really slow down.
   * (A moving average did not: a burst raised it past the bound and refused itself.)
   */
  private readonly recent: number[];
  private next = 0;

  constructor(
    private readonly threads: number,
    private readonly maxWaitMs: number,
    typicalWorkMs: number,
    /** Told how long each admitted check waited for its thread. */
    private readonly onWaited: (ms: number) => void = () => {},
  ) {
    this.recent = Array(SAMPLES).fill(typicalWorkMs);
  }

  private get workMs(): number {
    return Math.min(...this.recent);
  }

  /** Checks waiting for a thread now. */
  get depth(): number {
    return this.queue.length;
  }

  /** How long a check admitted now would wait for a thread. */
  expectedWaitMs(): number {
    return this.active < this.threads ? 0 : ((this.queue.length + 1) * this.workMs) / this.threads;
  }

  /** Runs `work` on a thread's turn; with a deadline, refuses at once when the turn would come too late. */
  async run<T>(work: () => Promise<T>, deadline?: Deadline): Promise<T> {
    const arrived = performance.now();
    if (this.active < this.threads) this.active++;
    else await this.wait(deadline);
    const started = performance.now();
    this.onWaited(started - arrived);
    try {
      return await work();
    } finally {
      this.recent[this.next] = performance.now() - started;
      this.next = (this.next + 1) % SAMPLES;
      const waiting = this.queue.shift();
      if (waiting) waiting();
      else this.active--;
    }
  }

  private wait(deadline?: Deadline): Promise<void> {
    const expected = this.expectedWaitMs();
    const left = deadline ? deadline.remaining() : Infinity;
    if (expected > this.maxWaitMs || expected >= left) throw this.busy(expected);
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter = () => {
        clearTimeout(timer);
        resolve();
      };
      if (deadline) {
        // Out of time in line: leave it, and hand the place to nobody (it never had a thread).
        timer = setTimeout(() => {
          const at = this.queue.indexOf(waiter);
          if (at >= 0) this.queue.splice(at, 1);
          reject(this.busy(this.expectedWaitMs()));
        }, left);
      }
      this.queue.push(waiter);
    });
  }

  private busy(expectedMs: number): TryAgainError {
    return new TryAgainError('Too many logins at once; try again shortly', Math.max(1, Math.ceil(expectedMs / 1000)));
  }
}
