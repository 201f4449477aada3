import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { hashSync, parseOptions } from '@node-rs/argon2';
import type { Argon2Params } from '../config/config.js';
import type { Deadline } from '../deadline.js';
import { HashingThreads } from './hashing-threads.js';
import { isPreHashedRecord, matchesPreHashed } from './pre-hashed-password.js';

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** `deadline`: the login's, for a hasher that may have to wait for a thread. */
  verify(passwordHash: string, password: string, deadline?: Deadline): Promise<boolean>;
  /** True when the hash was made with other parameters than the current ones. */
  needsRehash(passwordHash: string): boolean;
  /** The same work as one verification, for a user that does not exist; always false. */
  verifyDummy(password: string, deadline?: Deadline): Promise<false>;
  /** How long one hash took when measured at start-up, in milliseconds. */
  readonly typicalMs: number;
}

/**
 * argon2id through @node-rs/argon2 (and the product's pre-hashed passwords, until their first
 * login replaces them: see pre-hashed-password.ts), on hashing threads below the event loop's priority
 * (HashingThreads), `threads` of them at most. A dummy hash made at start-up with the
 * current parameters lets unknown users cost what known ones cost.
 */
export class Argon2Hasher implements PasswordHasher {
  private constructor(
    private readonly params: Argon2Params,
    private readonly dummyHash: string,
    readonly typicalMs: number,
    private readonly threads: HashingThreads,
  ) {}

  /** Measures one hash at start-up, on the calling thread (no hashing thread is started before the first login). */
  static create(params: Argon2Params, threads: number): Argon2Hasher {
    const started = performance.now();
    const dummy = hashSync(randomBytes(32).toString('base64url'), params);
    return new Argon2Hasher(params, dummy, performance.now() - started, new HashingThreads(threads));
  }

  async hash(password: string): Promise<string> {
    return (await this.threads.run({ op: 'hash', password, params: this.params })) as string;
  }

  async verify(passwordHash: string, password: string): Promise<boolean> {
    if (isPreHashedRecord(passwordHash)) {
      // One SHA-256 would answer in microseconds: the dummy argon2id makes it cost what any check costs.
      const match = matchesPreHashed(passwordHash, password);
      await this.verify(this.dummyHash, password);
      return match;
    }
    if (!passwordHash.startsWith('$argon2id$')) return false;
    try {
      return (await this.threads.run({ op: 'verify', hash: passwordHash, password })) === true;
    } catch {
      return false; // a damaged hash rejects the password instead of failing the request
    }
  }

  /** Ends the hashing threads (a process that stops, a test). */
  close(): Promise<void> {
    return this.threads.close();
  }

  needsRehash(passwordHash: string): boolean {
    if (isPreHashedRecord(passwordHash)) return true;
    try {
      const current = parseOptions(passwordHash);
      return (
        current.memoryCost !== this.params.memoryCost ||
        current.timeCost !== this.params.timeCost ||
        current.parallelism !== this.params.parallelism
      );
    } catch {
      return true;
    }
  }

  async verifyDummy(password: string): Promise<false> {
    await this.verify(this.dummyHash, password);
    return false;
  }
}
