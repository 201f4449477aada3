import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { hash, parseOptions, verify } from '@node-rs/argon2';
import type { Argon2Params } from '../config/config.js';
import type { Deadline } from '../deadline.js';

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
 * argon2id through @node-rs/argon2, whose work runs off the event loop. A dummy hash made
 * at start-up with the current parameters lets unknown users cost what known ones cost.
 */
export class Argon2Hasher implements PasswordHasher {
  private constructor(
    private readonly params: Argon2Params,
    private readonly dummyHash: string,
    readonly typicalMs: number,
  ) {}

  static async create(params: Argon2Params): Promise<Argon2Hasher> {
    const started = performance.now();
    const dummy = await hash(randomBytes(32).toString('base64url'), params);
    return new Argon2Hasher(params, dummy, performance.now() - started);
  }

  hash(password: string): Promise<string> {
    return hash(password, this.params);
  }

  async verify(passwordHash: string, password: string): Promise<boolean> {
    if (!passwordHash.startsWith('$argon2id$')) return false;
    try {
      return await verify(passwordHash, password);
    } catch {
      return false; // a damaged hash rejects the password instead of failing the request
    }
  }

  needsRehash(passwordHash: string): boolean {
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
    await verify(this.dummyHash, password);
    return false;
  }
}
