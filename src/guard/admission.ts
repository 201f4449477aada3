import { TryAgainError } from '../errors.js';

/**
 * Bounded admission for password verifications: `running` at once (one a core),
 * `waiting` more in line, and beyond that an immediate 503 with Retry-After. Offered load
 * far above capacity then costs a refusal, not an ever longer queue for everyone.
 */
export class Admission {
  private active = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    private readonly running: number,
    private readonly waiting: number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active < this.running) this.active++;
    else if (this.queue.length < this.waiting) await new Promise<void>((resolve) => this.queue.push(resolve));
    else throw new TryAgainError('Too many logins at once; try again in a second');
    try {
      return await work();
    } finally {
      const next = this.queue.shift();
      if (next) next();
      else this.active--;
    }
  }
}
