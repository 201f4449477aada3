import type { Clock } from '../clock.js';
import type { Policy } from '../policy/policy.js';
import type { PolicyService } from '../policy/policy-service.js';
import type { SessionStore } from './session-store.js';

/** A console session's last request is written at most this often a node (other nodes read it when theirs looks idle). */
const SEEN_WRITE_MS = 15_000;
/** Console sessions remembered at once; past it the memory starts again (a few store reads, never unbounded). */
const MAX_TRACKED = 100_000;

/** The one rule of the console's idle sign-out: a session whose last request is older than cm_session_timeout_minutes has ended. */
export function idleOut(
  lastRequestAt: number,
  now: number,
  policy: Pick<Policy, 'cm_session_timeout_minutes'>,
): boolean {
  return now - lastRequestAt > policy.cm_session_timeout_minutes * 60_000;
}

/**
 * The web console's idle sign-out, kept by the server: a console session (`cm` in its
 * tokens) whose last request is older than cm_session_timeout_minutes is ended, so that a
 * token taken out of the page stops working then, whatever its exp. Each node remembers the
 * last request it saw of each session (a map lookup on the hot path) and writes it to the
 * store now and then; one that looks idle here is asked of the store before it is ended,
 * since it may have been busy on another node.
 */
export class ConsoleIdle {
  private readonly seen = new Map<string, { at: number; written: number }>();

  constructor(
    private readonly store: Pick<SessionStore, 'get' | 'seen'>,
    private readonly policy: Pick<PolicyService, 'fresh' | 'get'>,
    private readonly clock: Clock,
    /** Ends a session found idle (and refuses its tokens here at once). */
    private readonly endSession: (sid: string) => Promise<void>,
  ) {}

  /** Without waiting: true when the session was in use within the timeout as this node knows it (and it is now); undefined: ask `check`. */
  active(sid: string): true | undefined {
    const entry = this.seen.get(sid);
    const policy = this.policy.fresh();
    const now = this.clock();
    if (!entry || !policy || idleOut(entry.at, now, policy)) return undefined;
    this.used(sid, entry, now);
    return true;
  }

  /** Whether the session is in use still, as the store knows it; an idle one is ended. */
  async check(sid: string): Promise<boolean> {
    const now = this.clock();
    const policy = await this.policy.get();
    const session = await this.store.get(sid);
    if (!session || session.endedAt !== null) return false;
    const last = Math.max(session.lastSeenAt.getTime(), this.seen.get(sid)?.at ?? 0);
    if (idleOut(last, now, policy)) {
      this.seen.delete(sid);
      await this.endSession(sid);
      return false;
    }
    if (this.seen.size >= MAX_TRACKED) this.seen.clear();
    const entry = { at: now, written: session.lastSeenAt.getTime() };
    this.seen.set(sid, entry);
    this.used(sid, entry, now);
    return true;
  }

  /** A request of the session now: remembered, and written when the store's copy is getting old. */
  private used(sid: string, entry: { at: number; written: number }, now: number): void {
    entry.at = now;
    if (now - entry.written < SEEN_WRITE_MS) return;
    entry.written = now;
    this.store.seen(sid, new Date(now)).catch(() => (entry.written = 0)); // tried again at the next request
  }
}
