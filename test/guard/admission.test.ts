import { afterEach, describe, expect, it } from 'vitest';
import { Deadline } from '../../src/deadline.js';
import { TryAgainError } from '../../src/errors.js';
import { Admission } from '../../src/guard/admission.js';
import { call } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

/** Work that runs until the test lets it finish. */
function heldWork(admission: Admission) {
  const release: (() => void)[] = [];
  let running = 0;
  let peak = 0;
  const run = () =>
    admission.run(async () => {
      peak = Math.max(peak, ++running);
      await new Promise<void>((r) => release.push(r));
      running--;
    });
  const finishOne = async () => {
    while (release.length === 0) await new Promise((r) => setTimeout(r, 1));
    release.shift()!();
  };
  return { run, finishOne, peak: () => peak };
}

describe('Admission', () => {
  it('queues while the expected wait stays under the bound, and refuses beyond it at once', async () => {
    // 2 threads, 10 ms a check, at most 100 ms of expected wait: 2 run, 20 wait
    // ((20 × 10) / 2 = 100 ms), the 23rd would wait 105 ms and is refused.
    const admission = new Admission(2, 100, 10);
    const work = heldWork(admission);
    const admitted = Array.from({ length: 22 }, () => work.run());
    const refused = await work.run().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TryAgainError);
    expect((refused as TryAgainError).retryAfterSeconds).toBe(1);
    for (let i = 0; i < 22; i++) await work.finishOne();
    await Promise.all(admitted);
    expect(work.peak()).toBe(2);
  });

  it('learns the time of a check from the least of the last 16: a few slow ones (a busy loop) change nothing, 16 do', async () => {
    const admission = new Admission(1, 100, 1);
    const slow = () => admission.run(() => new Promise((r) => setTimeout(r, 60)));
    for (let i = 0; i < 15; i++) await slow();
    const held = slow();
    expect(admission.expectedWaitMs()).toBeLessThan(5); // still the seeded 1 ms: one fast check among the last 16
    await held;
    expect(admission.expectedWaitMs()).toBe(0);
    const first = slow();
    expect(admission.expectedWaitMs()).toBeGreaterThan(40); // one ahead, ~60 ms each
    await first;
  });

  it('drops a login from the line when its deadline passes, without giving it a thread', async () => {
    const admission = new Admission(1, 10_000, 1);
    const work = heldWork(admission);
    const holder = work.run();
    let ran = false;
    const late = admission.run(async () => void (ran = true), Deadline.after(50));
    await expect(late).rejects.toBeInstanceOf(TryAgainError);
    await work.finishOne();
    await holder;
    expect(ran).toBe(false);
    expect(admission.expectedWaitMs()).toBe(0);
  });

  it('refuses at once a login whose deadline is shorter than the wait it can expect', async () => {
    const admission = new Admission(1, 10_000, 100);
    const work = heldWork(admission);
    const holder = work.run();
    const started = Date.now();
    await expect(admission.run(async () => {}, Deadline.after(50))).rejects.toBeInstanceOf(TryAgainError);
    expect(Date.now() - started).toBeLessThan(40);
    await work.finishOne();
    await holder;
  });
});

describe('login bursts and overload', () => {
  let t: TestTessera;
  afterEach(() => t.close());

  it('serves a burst of 200 logins of 20 users whole: no 503', async () => {
    // Bounds wide enough for a machine busy with other work (the burst's real wait), so that
    // only an estimate that the burst itself disturbs could refuse one.
    t = await testTessera({ authRateLimit: 0, loginQueueMs: 5000, loginTimeoutMs: 10_000 });
    for (let u = 0; u < 20; u++) await t.addUser(`user-${u}`, `password-of-${u}`);
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        call(t, 'POST', '/v1/users/authorize', {
          body: { username: `user-${i % 20}`, password: `password-of-${i % 20}` },
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(200).fill(200));
  });

  it('answers 503 try_again with Retry-After beyond the queue bound, and serves the admitted', async () => {
    // Two threads and no waiting line, whatever the machine's cores: two run, the rest are refused.
    t = await testTessera({ loginQueueMs: 0, authRateLimit: 0, hashThreads: 2 });
    await t.addUser('quinn', 'quinn-password-1');
    // Thirty different credentials (the same ones at once would share one verification).
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call(t, 'POST', '/v1/users/authorize', {
          body:
            i === 0
              ? { username: 'quinn', password: 'quinn-password-1' }
              : { username: `nobody-${i}`, password: `guess-${i}` },
        }),
      ),
    );
    const refused = results.filter((r) => r.status === 503);
    expect(refused.length).toBeGreaterThanOrEqual(15);
    expect(results.every((r) => [200, 401, 503].includes(r.status))).toBe(true);
    expect(results.filter((r) => r.status !== 503).length).toBeGreaterThanOrEqual(2);
    expect(refused[0]!.body.error_code).toBe('try_again');
    expect(refused[0]!.headers['retry-after']).toBe('1');
    expect((await call(t, 'GET', '/healthz')).status).toBe(200);
  });
});
