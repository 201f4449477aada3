import type { Deadline } from '../deadline.js';
import type { PasswordHasher } from '../users/password-hasher.js';
import type { Admission } from './admission.js';

/**
 * Every argon2id hash and verification of a serving node — logins, new users, password
 * changes — goes through one Admission, so that no more run at once than there are cores
 * and the time it measures is the time of one (not of one queued behind others).
 */
export class AdmittedHasher implements PasswordHasher {
  constructor(
    private readonly inner: PasswordHasher,
    private readonly admission: Admission,
    /** Told the time of each verification on its thread. */
    private readonly onVerified: (ms: number) => void = () => {},
  ) {}

  get typicalMs(): number {
    return this.inner.typicalMs;
  }

  hash(password: string): Promise<string> {
    return this.admission.run(() => this.inner.hash(password));
  }

  verify(passwordHash: string, password: string, deadline?: Deadline): Promise<boolean> {
    return this.admission.run(() => this.timed(this.inner.verify(passwordHash, password)), deadline);
  }

  verifyDummy(password: string, deadline?: Deadline): Promise<false> {
    return this.admission.run(() => this.timed(this.inner.verifyDummy(password)), deadline);
  }

  private async timed<T>(work: Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work;
    } finally {
      this.onVerified(performance.now() - started);
    }
  }

  needsRehash(passwordHash: string): boolean {
    return this.inner.needsRehash(passwordHash);
  }
}
