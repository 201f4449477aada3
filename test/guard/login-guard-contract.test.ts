import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoginGuard, MemoryLoginGuard } from '../../src/guard/login-guard.js';
import { RedisLoginGuard } from '../../src/guard/redis-login-guard.js';
import { freshRedisPrefix, REDIS_URL } from '../helpers/services.js';

let a: Redis;
let b: Redis;
let now = Date.now();
const clock = () => now;
const LEASE = 10_000;
beforeAll(() => {
  a = new Redis(REDIS_URL);
  b = new Redis(REDIS_URL);
});
afterAll(() => {
  a.disconnect();
  b.disconnect();
});

/**
 * What every LoginGuard must do, run against each: two "nodes" that share the counters —
 * for Redis, two guards on two connections; in memory, the one guard of a process.
 */
const KINDS: Record<string, () => readonly [LoginGuard, LoginGuard]> = {
  MemoryLoginGuard: () => {
    const guard = new MemoryLoginGuard(clock);
    return [guard, guard];
  },
  RedisLoginGuard: () => {
    const prefix = freshRedisPrefix();
    return [new RedisLoginGuard(a, prefix, clock), new RedisLoginGuard(b, prefix, clock)];
  },
};

describe.each(Object.keys(KINDS))('%s', (kind) => {
  const nodes = () => KINDS[kind]!();

  it('reserves no more slots than failures remain, across nodes', async () => {
    const [one, two] = nodes();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? one : two).reserve('user', `attempt-${i}`, 5, LEASE)),
    );
    expect(answers.filter((x) => x === 'ok')).toHaveLength(5);
    expect(answers.filter((x) => x === 'wait')).toHaveLength(45);
  });

  it('counts failures to the threshold, then says locked; a success clears', async () => {
    const [one, two] = nodes();
    for (let i = 0; i < 3; i++) {
      expect(await one.reserve('u', `a${i}`, 3, LEASE)).toBe('ok');
      expect(await two.settle('u', `a${i}`, true, 60_000)).toBe(i + 1);
    }
    expect(await two.reserve('u', 'x', 3, LEASE)).toBe('locked');
    await one.clear('u');
    expect(await two.reserve('u', 'y', 3, LEASE)).toBe('ok');
    expect(await two.settle('u', 'y', false, 60_000)).toBe(0);
  });

  it('forgets failures when the window ends or an unlock happened after they began', async () => {
    const [one] = nodes();
    for (const id of ['a', 'b']) {
      await one.reserve('w', id, 2, LEASE);
      await one.settle('w', id, true, 1000);
    }
    expect(await one.reserve('w', 'c', 2, LEASE)).toBe('locked');
    expect(await one.reserve('w', 'c', 2, LEASE, now + 1)).toBe('ok'); // unlocked after the first failure
    await one.settle('w', 'c', false, 1000);
    for (const id of ['d', 'e']) {
      await one.reserve('w', id, 2, LEASE);
      await one.settle('w', id, true, 1000);
    }
    now += 1001;
    expect(await one.reserve('w', 'f', 2, LEASE)).toBe('ok');
  });

  it("frees the lease of an attempt that never settled when the lease runs out (on the real clock: Redis's, or monotonic)", async () => {
    const [one, two] = nodes();
    expect(await one.reserve('z', 'lost', 1, 300)).toBe('ok');
    expect(await two.reserve('z', 'next', 1, 300)).toBe('wait');
    await new Promise((r) => setTimeout(r, 350));
    expect(await two.reserve('z', 'next', 1, 300)).toBe('ok');
  });

  it('gives a lease back without counting a failure', async () => {
    const [one, two] = nodes();
    expect(await one.reserve('r', 'a', 1, LEASE)).toBe('ok');
    expect(await two.reserve('r', 'b', 1, LEASE)).toBe('wait');
    await one.release('r', 'a');
    expect(await two.reserve('r', 'b', 1, LEASE)).toBe('ok');
    expect(await two.settle('r', 'b', true, 60_000)).toBe(1);
  });
});
