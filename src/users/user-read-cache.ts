import { LRUCache } from 'lru-cache';
import type { Clock } from '../clock.js';
import type { EventHub } from '../events.js';
import type { User } from './user.js';
import type { UserStore } from './user-store.js';

/** How long a node trusts a user it read, for changes made by other processes. */
export const USER_READ_CACHE_MS = 1000;

/**
 * Users as the read routes and the checks of remembered credentials see them, kept for a
 * second: a token-protected read then costs no store round trip (measured: it was more
 * than half of such a request's time). This process's own changes, and revoking changes
 * anywhere, drop the entry at once; other changes made elsewhere (a login's last_login, a
 * name, a lock) show within a second. Decisions that change data never read through here.
 */
export class UserReadCache {
  private readonly entries = new LRUCache<number, { user: User | undefined; at: number }>({ max: 10_000 });
  /** Counts forgets, so that a read that overlapped one is not kept. */
  private forgets = 0;

  constructor(
    private readonly users: UserStore,
    private readonly clock: Clock,
    events: EventHub,
  ) {
    events.on('userChanged', (uid) => this.forget(uid));
    // A login changes nothing but last_login: the user read stays, with it (and stays as fresh as it was).
    events.on('loginRecorded', (uid, at) => {
      const entry = this.entries.get(uid);
      if (entry?.user) this.entries.set(uid, { user: { ...entry.user, lastLogin: at }, at: entry.at });
    });
  }

  async get(uid: number): Promise<User | undefined> {
    const known = this.fresh(uid);
    if (known) return known.user;
    const now = this.clock();
    const forgets = this.forgets;
    const user = await this.users.getByUid(uid);
    if (forgets === this.forgets) this.entries.set(uid, { user, at: now });
    return user;
  }

  /** The user (or its absence) as read within the second, without waiting; undefined when not. */
  fresh(uid: number): { user: User | undefined } | undefined {
    const now = this.clock();
    const entry = this.entries.get(uid);
    return entry && now >= entry.at && now - entry.at < USER_READ_CACHE_MS ? entry : undefined;
  }

  private forget(uid: number): void {
    this.forgets++;
    this.entries.delete(uid);
  }
}
