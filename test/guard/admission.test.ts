import { afterEach, describe, expect, it } from 'vitest';
import { Admission } from '../../src/guard/admission.js';
import { TryAgainError } from '../../src/errors.js';
import { call } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

describe('Admission', () => {
  it('runs so many at once, queues so many, and refuses the rest at once', async () => {
    const admission = new Admission(2, 3);
    let running = 0;
    let peak = 0;
    const release: (() => void)[] = [];
    const work = () =>
      admission.run(async () => {
        peak = Math.max(peak, ++running);
        await new Promise<void>((r) => release.push(r));
        running--;
      });
    const admitted = [work(), work(), work(), work(), work()];
    await expect(work()).rejects.toBeInstanceOf(TryAgainError);
    while (release.length < 2) await new Promise((r) => setTimeout(r, 1));
    expect(peak).toBe(2);
    for (let done = 0; done < 5; done++) {
      while (release.length === 0) await new Promise((r) => setTimeout(r, 1));
      release.shift()!();
    }
    await Promise.all(admitted);
    expect(peak).toBe(2);
  });
});

describe('login overload', () => {
  let t: TestTessera;
  afterEach(() => t.close());

  it('answers 503 try_again with Retry-After beyond the queue, and serves the admitted', async () => {
    t = await testTessera({ maxPendingLogins: 2, authRateLimit: 0 });
    await t.addUser('quinn', 'quinn-password-1');
    const results = await Promise.all(
      Array.from({ length: 30 }, () => call(t, 'POST', '/v1/users/authorize', { body: { username: 'quinn', password: 'quinn-password-1' } })),
    );
    const refused = results.filter((r) => r.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    expect(results.filter((r) => r.status === 200).length + refused.length).toBe(30);
    expect(refused[0]!.body.error_code).toBe('try_again');
    expect(refused[0]!.headers['retry-after']).toBe('1');
    expect((await call(t, 'GET', '/healthz')).status).toBe(200);
  });
});
