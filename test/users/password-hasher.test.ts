import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { OWASP_ARGON2 } from '../../src/config/config.js';
import { Argon2Hasher } from '../../src/users/password-hasher.js';
import { checkPreHashed, preHashedRecord } from '../../src/users/pre-hashed-password.js';

const hashers: Argon2Hasher[] = [];
const made = (hasher: Argon2Hasher) => {
  hashers.push(hasher);
  return hasher;
};
afterEach(async () => {
  for (const h of hashers.splice(0)) await h.close();
});

/**
 * CPU time of the process (the hashing threads included), not wall time: other work on the
 * machine stretches the wall clock, not the work a check does.
 */
async function cpuMs(work: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  await work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}
const median = (times: number[]) => times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;

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
    // Interleaved, so that whatever drifts during the run hits both alike.
    const reals: number[] = [];
    const dummies: number[] = [];
    for (let i = 0; i < 9; i++) {
      reals.push(await cpuMs(() => hasher.verify(hash, 'wrong-password')));
      dummies.push(await cpuMs(() => hasher.verifyDummy('wrong-password')));
    }
    const [real, dummy] = [median(reals), median(dummies)];
    expect(dummy / real).toBeGreaterThan(0.6);
    expect(dummy / real).toBeLessThan(1.6);
  });
});

describe("the product's pre-hashed passwords", () => {
  const recipe = (username: string, cluster: string, password: string) =>
    createHash('sha256').update(`${username}:${cluster}:${password}`).digest('hex');
  const logins = { name: 'ann', email: 'ann@example.com' };

  it('match the password made with the name or the email and the cluster kept beside it, nothing else, and always ask for argon2id', async () => {
    const hasher = made(Argon2Hasher.create({ memoryCost: 1024, timeCost: 1, parallelism: 1 }, 2));
    for (const username of ['ann', 'ann@example.com']) {
      const record = preHashedRecord(
        checkPreHashed(recipe(username, 'c1.example', 'Pw-1').toUpperCase()),
        logins,
        'c1.example',
      );
      expect(record).not.toContain('Pw-1');
      expect(await hasher.verify(record, 'Pw-1')).toBe(true);
      expect(await hasher.verify(record, 'Pw-2')).toBe(false);
      expect(await hasher.verify(record, 'pw-1')).toBe(false);
      expect(hasher.needsRehash(record)).toBe(true);
    }
    // Another cluster's name, another user's name: not this password's recipe.
    expect(
      await hasher.verify(
        preHashedRecord(checkPreHashed(recipe('ann', 'c2.example', 'Pw-1')), logins, 'c1.example'),
        'Pw-1',
      ),
    ).toBe(false);
    expect(
      await hasher.verify(
        preHashedRecord(checkPreHashed(recipe('bob', 'c1.example', 'Pw-1')), logins, 'c1.example'),
        'Pw-1',
      ),
    ).toBe(false);
    // A damaged record refuses instead of failing.
    expect(await hasher.verify('$product-sha256$$zz', 'Pw-1')).toBe(false);
    expect(() => checkPreHashed('Pw-1')).toThrow(/hex SHA-256/);
  });

  it('cost what an argon2id check costs: a fast hash does not tell who was moved in by the time a wrong password takes', async () => {
    const hasher = made(Argon2Hasher.create({ memoryCost: 8192, timeCost: 2, parallelism: 1 }, 2));
    const hash = await hasher.hash('right-password');
    const record = preHashedRecord(checkPreHashed(recipe('ann', 'c1', 'right-password')), logins, 'c1');
    const reals: number[] = [];
    const moved: number[] = [];
    for (let i = 0; i < 9; i++) {
      reals.push(await cpuMs(() => hasher.verify(hash, 'wrong-password')));
      moved.push(await cpuMs(() => hasher.verify(record, 'wrong-password')));
    }
    expect(median(moved) / median(reals)).toBeGreaterThan(0.6);
    expect(median(moved) / median(reals)).toBeLessThan(1.6);
  });
});

describe('the hashing threads', () => {
  it("run below the event loop's priority, and end with the hasher", async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const niceness = () =>
      readdirSync('/proc/self/task').map((tid) =>
        Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]),
      );
    const hasher = Argon2Hasher.create({ memoryCost: 1024, timeCost: 1, parallelism: 1 }, 2);
    const before = niceness().filter((n) => n === 10).length;
    await Promise.all([hasher.hash('a'), hasher.hash('b')]);
    expect(niceness().filter((n) => n === 10).length - before).toBe(2);
    expect(Number(readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16])).toBe(0); // the event loop's own thread
    await hasher.close();
    await expect.poll(() => niceness().filter((n) => n === 10).length).toBe(before);
  });
});
