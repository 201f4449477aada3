import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { RealmName } from '../access/realm-name.js';
import type { Clock } from '../clock.js';
import type { User } from '../users/user.js';

/** Credentials remembered at most: 10,000 entries of about 200 bytes. */
const MAX_ENTRIES = 10_000;

/** What a success is remembered as: never the secret, never the user itself (read fresh when used). */
export interface Remembered {
  uid: number;
  /** The user's token epoch when its credentials were verified: any change that ends its tokens ends this too. */
  epoch: number;
  realm: RealmName;
  /** The realm vouched for the name as typed (a directory's alias): it need not be one of the account's logins. */
  anyName: boolean;
  /** Proven by a password (whose expiry applies). */
  byPassword: boolean;
}

interface Entry extends Remembered {
  mac: Buffer;
}

/**
 * The verified-credentials cache (the model: Elasticsearch's caching realms). After a realm
 * verified a proof, a salted hash of it — SHA-256 after a random salt this process makes at
 * start and keeps in memory only; never the password, never in the store or a log — is
 * remembered under the login's key (or the certificate's fingerprint) with the account it
 * proved and that account's token epoch, for at most `seconds` and at most the realm's own
 * bound (a directory's cache_ttl), counted from the verification: using an entry never
 * extends it. Whoever recalls an entry checks it against the account as read now (RememberingRealm);
 * any change that ends the account's tokens raises its epoch and so ends the entry. Only
 * successes are remembered; a wrong password always costs a full verification.
 */
export class VerifiedCredentials {
  private readonly salt = randomBytes(32).toString('base64');
  private readonly entries?: LRUCache<string, Entry>;

  constructor(seconds: number, clock: Clock) {
    if (seconds > 0)
      this.entries = new LRUCache({ max: MAX_ENTRIES, ttl: seconds * 1000, ttlResolution: 0, perf: { now: clock } });
  }

  /** The account these credentials were verified for, while remembered; undefined otherwise. */
  recall(key: string, secret: string): Remembered | undefined {
    const entry = this.entries?.get(key);
    return entry && timingSafeEqual(entry.mac, this.mac(key, secret)) ? entry : undefined;
  }

  /** `ttlMs`: less than the cache's own time, for what must not be trusted as long. */
  remember(
    key: string,
    secret: string,
    user: User,
    realm: RealmName,
    how: Pick<Remembered, 'anyName' | 'byPassword'>,
    ttlMs?: number,
  ): void {
    if (!this.entries || (ttlMs !== undefined && ttlMs <= 0)) return;
    const entry = { mac: this.mac(key, secret), uid: user.uid, epoch: user.tokenEpoch, realm, ...how };
    this.entries.set(key, entry, ttlMs === undefined ? undefined : { ttl: Math.min(ttlMs, this.entries.ttl) });
  }

  /** The same salted hash as a string: what logins with the same credentials share while one is verified. */
  tag(key: string, secret: string): string {
    return this.mac(key, secret).toString('base64');
  }

  /** Salted SHA-256 (Elasticsearch's `ssha256`), in one call: an HMAC object a check cost ~3 µs. The key's length first: no two (key, secret) pairs hash the same text. */
  private mac(key: string, secret: string): Buffer {
    return hash('sha256', `${this.salt}${key.length}:${key}${secret}`, 'buffer');
  }
}
