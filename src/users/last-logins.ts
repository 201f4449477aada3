import type { Clock } from '../clock.js';
import type { UserStore } from './user-store.js';

/** A user's last_login moves at most this often from one process (Basic on every call writes once a minute, not per call). */
const COALESCE_MS = 60_000;
/** Users remembered at once; past it the memory starts again (a few extra writes, never unbounded). */
const MAX_TRACKED = 10_000;

/**
 * `last_login` as the product defines it: "the last time an authentication with the user's
 * credentials was successful" — a login, Basic credentials or a client certificate on any
 * request (a token is not the user's credentials). Written in the background, coalesced per
 * user; a store that fails the write loses one timestamp, never the request.
 */
export class LastLogins {
  private readonly written = new Map<number, number>();

  constructor(
    private readonly users: Pick<UserStore, 'recordLogin'>,
    private readonly clock: Clock,
  ) {}

  /** A successful authentication of this user now. */
  touch(uid: number): void {
    const now = this.clock();
    const last = this.written.get(uid);
    if (last !== undefined && now - last < COALESCE_MS) return;
    if (this.written.size >= MAX_TRACKED) this.written.clear();
    this.written.set(uid, now);
    this.users.recordLogin(uid, new Date(now)).catch(() => this.written.delete(uid)); // tried again at the next authentication
  }
}
