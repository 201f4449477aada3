import { LRUCache } from 'lru-cache';
import type { Clock } from '../clock.js';
import type { ApiKey } from './api-key.js';
import type { ApiKeyStore } from './api-key-store.js';

/** How long a node trusts the key it read: a key revoked on another node is refused here within it. */
export const API_KEY_CACHE_MS = 1000;

/**
 * Keys by hash as the realm checks them, each read from the store at most once a second: a
 * check is one hash and one lookup in memory. A hash the store does not have is not kept (a
 * stream of wrong keys must not push the real ones out; each costs a read, and the client's
 * throttle). A change made here drops the entry at once.
 */
export class ApiKeyCache {
  private readonly entries = new LRUCache<string, { key: ApiKey; at: number }>({ max: 10_000 });
  /** Counts forgets, so that a read that overlapped one is not kept. */
  private forgets = 0;

  constructor(
    private readonly store: Pick<ApiKeyStore, 'byHash'>,
    private readonly clock: Clock,
  ) {}

  /** The key as read within the second, without waiting; undefined when not (or not there). */
  fresh(hash: string): { key: ApiKey } | undefined {
    const entry = this.entries.get(hash);
    const now = this.clock();
    return entry && now >= entry.at && now - entry.at < API_KEY_CACHE_MS ? entry : undefined;
  }

  async get(hash: string): Promise<ApiKey | null> {
    const known = this.fresh(hash);
    if (known) return known.key;
    const [at, forgets] = [this.clock(), this.forgets];
    const key = await this.store.byHash(hash);
    if (key && forgets === this.forgets) this.entries.set(hash, { key, at });
    else this.entries.delete(hash);
    return key ?? null;
  }

  forget(hash: string): void {
    this.forgets++;
    this.entries.delete(hash);
  }
}
