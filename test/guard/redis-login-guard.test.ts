import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisLoginGuard } from '../../src/guard/redis-login-guard.js';
import { freshRedisPrefix, REDIS_URL } from '../helpers/services.js';

let a: Redis;
let b: Redis;
let now = Date.now();
const clock = () => now;
beforeAll(() => {
  a = new Redis(REDIS_URL);
  b = new Redis(REDIS_URL);
});
afterAll(() => {
  a.disconnect();
  b.disconnect();
});

/** Two guards on two connections: two nodes sharing one Redis. */
function nodes() {
  const prefix = freshRedisPrefix();
  return [new RedisLoginGuard(a, prefix, clock), new RedisLoginGuard(b, prefix, clock)] as const;
}

describe('RedisLoginGuard', () => {
  it('reserves no more slots than failures remain, across nodes', async () => {
    const [one, two] = nodes();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? one : two).reserve('user', `attempt-${i}`, 5)),
    );
    expect(answers.filter((x) => x === 'ok')).toHaveLength(5);
    expect(answers.filter((x) => x === 'wait')).toHaveLength(45);
  });

  it('counts failures to the threshold, then says locked; a success clears', async () => {
    const [one, two] = nodes();
    for (let i = 0; i < 3; i++) {
      expect(await one.reserve('u', `a${i}`, 3)).toBe('ok');
      expect(await two.settle('u', `a${i}`, true, 60_000)).toBe(i + 1);
    }
    expect(await two.reserve('u', 'x', 3)).toBe('locked');
    await one.clear('u');
    expect(await two.reserve('u', 'y', 3)).toBe('ok');
    expect(await two.settle('u', 'y', false, 60_000)).toBe(0);
  });

  it('forgets failures when the window ends or an unlock happened after they began', async () => {
    const [one] = nodes();
    for (const id of ['a', 'b']) {
      await one.reserve('w', id, 2);
      await one.settle('w', id, true, 1000);
    }
    expect(await one.reserve('w', 'c', 2)).toBe('locked');
    expect(await one.reserve('w', 'c', 2, now + 1)).toBe('ok'); // unlocked after the first failure
    await one.settle('w', 'c', false, 1000);
    for (const id of ['d', 'e']) {
      await one.reserve('w', id, 2);
      await one.settle('w', id, true, 1000);
    }
    now += 1001;
    expect(await one.reserve('w', 'f', 2)).toBe('ok');
  });

  it('frees the slot of an attempt that never settled after 30 s', async () => {
    const [one] = nodes();
    expect(await one.reserve('z', 'lost', 1)).toBe('ok');
    expect(await one.reserve('z', 'next', 1)).toBe('wait');
    now += 30_001;
    expect(await one.reserve('z', 'next', 1)).toBe('ok');
  });
});
