import type { Redis } from 'ioredis';
import type { LoginGuard } from './login-guard.js';

/** An attempt that never settled (its node died) stops holding a slot after this long. */
const IN_FLIGHT_TTL_MS = 30_000;

/*
 * One hash per username key: f = failures, s = when the window's first failure was
 * counted, u = when the window ends; and a sorted set of attempts in flight, scored by
 * their start. Each script runs atomically in Redis, which makes the count exact across
 * every node.
 */
const RESERVE = `
local h, inflight = KEYS[1], KEYS[2]
local threshold, resetAt, now, id = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
redis.call('ZREMRANGEBYSCORE', inflight, '-inf', now - ${IN_FLIGHT_TTL_MS})
local f = tonumber(redis.call('HGET', h, 'f') or '0')
if f > 0 and (tonumber(redis.call('HGET', h, 'u') or '0') <= now or tonumber(redis.call('HGET', h, 's') or '0') < resetAt) then
  f = 0
  redis.call('DEL', h)
end
if f >= threshold then return 'locked' end
if f + redis.call('ZCARD', inflight) >= threshold then return 'wait' end
redis.call('ZADD', inflight, now, id)
redis.call('PEXPIRE', inflight, ${IN_FLIGHT_TTL_MS})
return 'ok'`;

const SETTLE = `
local h, inflight = KEYS[1], KEYS[2]
local failed, windowMs, now, id = ARGV[1] == '1', tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
redis.call('ZREM', inflight, id)
if not failed then
  redis.call('DEL', h)
  return 0
end
local f = tonumber(redis.call('HGET', h, 'f') or '0')
if f > 0 and tonumber(redis.call('HGET', h, 'u') or '0') <= now then f = 0 end
if f == 0 then
  redis.call('HSET', h, 's', now, 'u', now + windowMs)
  redis.call('PEXPIRE', h, windowMs)
end
f = f + 1
redis.call('HSET', h, 'f', f)
return f`;

/** The guard shared by every node through Redis. */
export class RedisLoginGuard implements LoginGuard {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly clock: () => number,
  ) {}

  private keys(key: string): [string, string] {
    const k = `${this.prefix}login:${key}`;
    return [k, `${k}:inflight`];
  }

  async reserve(key: string, attemptId: string, threshold: number, resetAt = 0): Promise<'ok' | 'wait' | 'locked'> {
    const answer = await this.redis.eval(RESERVE, 2, ...this.keys(key), threshold, resetAt, this.clock(), attemptId);
    return answer as 'ok' | 'wait' | 'locked';
  }

  async settle(key: string, attemptId: string, failed: boolean, windowMs: number): Promise<number> {
    return Number(await this.redis.eval(SETTLE, 2, ...this.keys(key), failed ? '1' : '0', windowMs, this.clock(), attemptId));
  }

  async clear(key: string): Promise<void> {
    await this.redis.del(this.keys(key)[0]);
  }
}
