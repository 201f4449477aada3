import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../clock.js';
import type { User } from '../users/user.js';

/** Users remembered at most: 10,000 entries of ~100 bytes. */
const MAX_ENTRIES = 10_000;

/**
 * The verified-credentials cache (the model: Elasticsearch's realm cache). After a password
 * was verified, a keyed hash of it — HMAC-SHA-256 under a key this process makes at start and
 * keeps in memory only, never the password, never in the store or a log — is remembered
 * for the user for `seconds`, with the token epoch it was verified at. The same credentials
 * again then check in microseconds instead of a full argon2id verification, which is what
 * automation sending Basic on every call needs. Every change that ends the user's tokens
 * (a password changed or deleted, a role, a deletion) raises that epoch in the store, on
 * every node: the entry no longer matches the user read for the request. Only successes are
 * remembered; a wrong password always costs a full verification.
 */
export class VerifiedCredentials {
  private readonly key = randomBytes(32);
  private readonly entries?: LRUCache<number, { mac: Buffer; epoch: number }>;

  constructor(seconds: number, clock: Clock) {
    if (seconds > 0) this.entries = new LRUCache({ max: MAX_ENTRIES, ttl: seconds * 1000, ttlResolution: 0, perf: { now: clock } });
  }

  /** Whether this password of this user, as read now, was verified within the cache's time. */
  holds(user: User, password: string): boolean {
    const entry = this.entries?.get(user.uid);
    if (!entry || entry.epoch !== user.tokenEpoch) return false;
    return timingSafeEqual(entry.mac, this.mac(user.uid, password));
  }

  remember(user: User, password: string): void {
    this.entries?.set(user.uid, { mac: this.mac(user.uid, password), epoch: user.tokenEpoch });
  }

  private mac(uid: number, password: string): Buffer {
    return createHmac('sha256', this.key).update(`${uid}\u0000${password}`).digest();
  }
}
