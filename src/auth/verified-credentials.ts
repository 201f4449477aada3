import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../clock.js';
import type { User } from '../users/user.js';

/** Logins remembered at most: 10,000 entries of ~1 KB. */
const MAX_ENTRIES = 10_000;
/** How long the user read with a remembered password is trusted before it is read again. */
export const RECALLED_USER_MS = 1000;

interface Entry {
  mac: Buffer;
  /** The user as read when the password was last confirmed, and when that was. */
  user: User;
  readAt: number;
}

/**
 * The verified-credentials cache (the model: Elasticsearch's realm cache). After a password
 * was verified, a salted hash of it — SHA-256 after a random salt this process makes at start
 * and keeps in memory only, never the password, never in the store or a log — is remembered
 * under the login it was given with, for `seconds`, with the user as read then. The same
 * credentials again then check in microseconds instead of a full argon2id verification,
 * which is what automation sending Basic on every call needs. The user read is trusted for
 * a second (as the read routes trust theirs); every change that ends the user's tokens (a
 * password changed or deleted, a role, a deletion) raises its token epoch, which the caller
 * checks against the revocation list — here at once, on other nodes at their next poll —
 * and any change made by this process forgets the user at once. Only successes are
 * remembered; a wrong password always costs a full verification.
 */
export class VerifiedCredentials {
  private readonly salt = randomBytes(32).toString('base64');
  private readonly entries?: LRUCache<string, Entry>;

  constructor(
    seconds: number,
    private readonly clock: Clock,
  ) {
    if (seconds > 0) this.entries = new LRUCache({ max: MAX_ENTRIES, ttl: seconds * 1000, ttlResolution: 0, perf: { now: clock } });
  }

  /**
   * The user this password of this login was verified for within the cache's time, and
   * whether that user was read within the last second; undefined when it was not verified.
   */
  recall(login: string, password: string): { user: User; fresh: boolean } | undefined {
    const entry = this.entries?.get(login);
    if (!entry || !timingSafeEqual(entry.mac, this.mac(login, password))) return undefined;
    const age = this.clock() - entry.readAt;
    return { user: entry.user, fresh: age >= 0 && age < RECALLED_USER_MS };
  }

  /** `ttlMs`: less than the cache's own time, for answers that must not be trusted as long (a directory's). */
  remember(login: string, user: User, password: string, ttlMs?: number): void {
    if (ttlMs !== undefined && ttlMs <= 0) return;
    this.entries?.set(login, { mac: this.mac(login, password), user, readAt: this.clock() }, ttlMs === undefined ? undefined : { ttl: Math.min(ttlMs, this.entries.ttl) });
  }

  /** The user was read again and is as it was: trust it for another second. */
  confirm(login: string, user: User): void {
    const entry = this.entries?.get(login);
    if (entry) this.entries!.set(login, { ...entry, user, readAt: this.clock() });
  }

  /** Something about the user changed here: no login of theirs is answered from memory. */
  forget(uid: number): void {
    this.entries?.forEach((entry, login) => entry.user.uid === uid && this.entries!.delete(login));
  }

  /** Salted SHA-256 (Elasticsearch's `ssha256`), in one call: an HMAC object a check cost ~3 µs. */
  private mac(login: string, password: string): Buffer {
    return hash('sha256', `${this.salt}${login}\u0000${password}`, 'buffer');
  }
}
