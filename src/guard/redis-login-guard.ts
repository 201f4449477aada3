import type { Redis } from 'ioredis';
import type { LoginGuard } from './login-guard.js';

/*
 * One hash per username key: f = failures, s = when the window's first failure was
 * counted, u = when the window ends (the nodes' clock, as policy windows are); and a sorted
 * set of leases, scored by when each expires on Redis's own clock, so that nodes whose
 * clocks differ agree on it. Each script runs atomically in Redis, which makes the count
 * exact across every node; a lease of a node that died expires by itself.
 */
const NOW = `local t = redis.call('TIME')
local serverNow = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

const RESERVE = `
local h, leases = KEYS[1], KEYS[2]
local threshold, resetAt, now, id, leaseMs = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5])
${NOW}
redis.call('ZREMRANGEBYSCORE', leases, '-inf', serverNow)
local f = tonumber(redis.call('HGET', h, 'f') or '0')
if f > 0 and (tonumber(redis.call('HGET', h, 'u') or '0') <= now or tonumber(redis.call('HGET', h, 's') or '0') < resetAt) then
  f = 0
  redis.call('DEL', h)
end
if f >= threshold then return 'locked' end
if f + redis.call('ZCARD', leases) >= threshold then return 'wait' end
redis.call('ZADD', leases, serverNow + leaseMs, id)
if redis.call('PTTL', leases) < leaseMs then redis.call('PEXPIRE', leases, leaseMs) end
return 'ok'`;

const SETTLE = `
local h, leases = KEYS[1], KEYS[2]
local failed, windowMs, now, id = ARGV[1] == '1', tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
redis.call('ZREM', leases, id)
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

  /** The failure hash and the lease set of a username key. */
  keys(key: string): [string, string] {
    const k = `${this.prefix}login:${key}`;
    return [k, `${k}:leases`];
  }

  async reserve(
    key: string,
    attemptId: string,
    threshold: number,
    leaseMs: number,
    resetAt = 0,
  ): Promise<'ok' | 'wait' | 'locked'> {
    const answer = await this.redis.eval(
      RESERVE,
      2,
      ...this.keys(key),
      threshold,
      resetAt,
      this.clock(),
      attemptId,
      leaseMs,
    );
    return answer as 'ok' | 'wait' | 'locked';
  }

  async settle(key: string, attemptId: string, failed: boolean, windowMs: number): Promise<number> {
    return Number(
      await this.redis.eval(SETTLE, 2, ...this.keys(key), failed ? '1' : '0', windowMs, this.clock(), attemptId),
    );
  }

  async release(key: string, attemptId: string): Promise<void> {
    await this.redis.zrem(this.keys(key)[1], attemptId);
  }

  async clear(key: string): Promise<void> {
    await this.redis.del(this.keys(key)[0]);
  }
}
