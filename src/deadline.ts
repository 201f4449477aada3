import { performance } from 'node:perf_hooks';

/**
 * The moment by which a piece of work must be answered, on the monotonic clock (waiting is
 * real time, whatever the injected business clock says). A login carries one, passed
 * explicitly: every store, Redis and queue wait inside it gets the time that is left.
 * (Not through AsyncLocalStorage: on Node 20 its first use slows every await of the process.)
 */
export class Deadline {
  private constructor(private readonly at: number) {}

  static after(ms: number): Deadline {
    return new Deadline(performance.now() + ms);
  }

  /** Milliseconds left, never below 0. */
  remaining(): number {
    return Math.max(0, this.at - performance.now());
  }

  expired(): boolean {
    return this.remaining() === 0;
  }

  /** `promise`, or `onTimeout()`'s error when the time is up; see `within`. */
  race<T>(promise: Promise<T>, onTimeout: () => Error, abandon?: (late: T) => void): Promise<T> {
    return within(promise, this.remaining(), onTimeout, abandon);
  }
}

/**
 * `promise`, or `onTimeout()`'s error once `ms` have passed. The promise is not cancelled:
 * `abandon` receives its value if it arrives late (to release what it holds).
 */
export function within<T>(
  promise: Promise<T>,
  ms: number,
  onTimeout: () => Error,
  abandon?: (late: T) => void,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(onTimeout());
    }, ms);
  });
  promise.then(
    (value) => {
      if (timedOut) abandon?.(value);
    },
    () => {},
  );
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
