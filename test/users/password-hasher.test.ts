import { afterEach, describe, expect, it } from 'vitest';
import { OWASP_ARGON2 } from '../../src/config/config.js';
import { Argon2Hasher } from '../../src/users/password-hasher.js';

const hashers: Argon2Hasher[] = [];
const made = (hasher: Argon2Hasher) => (hashers.push(hasher), hasher);
afterEach(async () => {
  for (const h of hashers.splice(0)) await h.close();
});

describe('Argon2Hasher', () => {
  it('hashes with argon2id at the OWASP parameters by default and verifies exactly', async () => {
    const hasher = made(Argon2Hasher.create(OWASP_ARGON2, 2));
    const hash = await hasher.hash('Tr0ub4dor&3');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await hasher.verify(hash, 'Tr0ub4dor&3')).toBe(true);
    expect(await hasher.verify(hash, 'tr0ub4dor&3')).toBe(false);
    expect(await hasher.verify(hash, 'Tr0ub4dor&3 ')).toBe(false);
    expect(hasher.needsRehash(hash)).toBe(false);
  });

  it('salts every hash', async () => {
    const hasher = made(Argon2Hasher.create({ memoryCost: 1024, timeCost: 1, parallelism: 1 }, 2));
    expect(await hasher.hash('same')).not.toBe(await hasher.hash('same'));
  });

  it('asks for a rehash when the parameters changed, and rejects rather than throws on a damaged hash', async () => {
    const weak = made(Argon2Hasher.create({ memoryCost: 1024, timeCost: 1, parallelism: 1 }, 2));
    const strong = made(Argon2Hasher.create({ memoryCost: 2048, timeCost: 1, parallelism: 1 }, 2));
    const hash = await weak.hash('pw');
    expect(strong.needsRehash(hash)).toBe(true);
    expect(await strong.verify(hash, 'pw')).toBe(true);
    expect(await strong.verify('$argon2id$garbage', 'pw')).toBe(false);
    expect(await strong.verify('$2b$10$bcrypt-hash', 'pw')).toBe(false);
  });

  it('pays a full verification for an unknown user: the dummy costs what a real check costs', async () => {
    const hasher = made(Argon2Hasher.create({ memoryCost: 8192, timeCost: 2, parallelism: 1 }, 2));
    const hash = await hasher.hash('right-password');
    // CPU time of the process (the hashing threads included), not wall time: other work on
    // the machine stretches the wall clock, not the work a check does. Interleaved, so that
    // whatever drifts during the run hits both alike.
    const cpuMs = async (work: () => Promise<unknown>) => {
      const before = process.cpuUsage();
      await work();
      const used = process.cpuUsage(before);
      return (used.user + used.system) / 1000;
    };
    const reals: number[] = [];
    const dummies: number[] = [];
    for (let i = 0; i < 9; i++) {
      reals.push(await cpuMs(() => hasher.verify(hash, 'wrong-password')));
      dummies.push(await cpuMs(() => hasher.verifyDummy('wrong-password')));
    }
    const median = (times: number[]) => times.sort((a, b) => a - b)[4]!;
    const [real, dummy] = [median(reals), median(dummies)];
    expect(dummy / real).toBeGreaterThan(0.6);
    expect(dummy / real).toBeLessThan(1.6);
  });
});

describe('the hashing threads', () => {
  it('run below the event loop\'s priority, and end with the hasher', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const niceness = () =>
      readdirSync('/proc/self/task').map((tid) => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]));
    const hasher = Argon2Hasher.create({ memoryCost: 1024, timeCost: 1, parallelism: 1 }, 2);
    const before = niceness().filter((n) => n === 10).length;
    await Promise.all([hasher.hash('a'), hasher.hash('b')]);
    expect(niceness().filter((n) => n === 10).length - before).toBe(2);
    expect(Number(readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8").split(") ")[1]!.split(" ")[16])).toBe(0); // the event loop's own thread
    await hasher.close();
    await expect.poll(() => niceness().filter((n) => n === 10).length).toBe(before);
  });
});
