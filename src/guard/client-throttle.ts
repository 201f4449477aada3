import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { TooManyRequestsError } from '../errors.js';

/**
 * Per-client-address throttling of password attempts (rate-limiter-flexible). It answers
 * 429 with a retry time and never touches a user's lockout counter.
 */
export class ClientThrottle {
  private readonly limiter?: RateLimiterMemory;

  constructor(attemptsPerMinute: number) {
    if (attemptsPerMinute > 0) this.limiter = new RateLimiterMemory({ points: attemptsPerMinute, duration: 60 });
  }

  async check(address: string): Promise<void> {
    if (!this.limiter) return;
    try {
      await this.limiter.consume(address);
    } catch (res) {
      if (res instanceof RateLimiterRes) throw new TooManyRequestsError(Math.ceil(res.msBeforeNext / 1000));
      throw res;
    }
  }
}
