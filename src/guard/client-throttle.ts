import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { TooManyRequestsError } from '../errors.js';

/**
 * Per-client-address throttling of password attempts (rate-limiter-flexible), in memory or
 * shared through Redis, with memory as insurance while Redis is away. It answers 429 with a
 * retry time and never touches a user's lockout counter.
 */
export class ClientThrottle {
  private readonly limiter?: RateLimiterMemory | RateLimiterRedis;

  constructor(attemptsPerMinute: number, redis?: { client: Redis; prefix: string }) {
    if (attemptsPerMinute <= 0) return;
    const options = { points: attemptsPerMinute, duration: 60 };
    this.limiter = redis
      ? new RateLimiterRedis({
          ...options,
          storeClient: redis.client,
          keyPrefix: `${redis.prefix}throttle`,
          insuranceLimiter: new RateLimiterMemory(options),
        })
      : new RateLimiterMemory(options);
  }

  /** Refuses (429) an address past its attempts, without counting one. */
  async assertOpen(address: string): Promise<void> {
    if (!this.limiter) return;
    const res = await this.limiter.get(address);
    if (res && res.consumedPoints > this.limiter.points)
      throw new TooManyRequestsError(Math.ceil(res.msBeforeNext / 1000));
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
