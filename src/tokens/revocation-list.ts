import type { Clock } from '../clock.js';
import type { EventHub } from '../events.js';
import type { RevocationEvent, RevocationStore } from './revocation-store.js';

/** How often a process reads the revocations other processes (the CLI, other nodes) wrote. */
export const REVOCATION_POLL_MS = 500;
/** How long an id skipped by a later one is looked for again: far longer than a revoking transaction takes. */
const GAP_WAIT_MS = 60_000;
const MAX_GAPS = 10_000;
const EPOCH_CACHE_SIZE = 100_000;
const DAY_MS = 86_400_000;

/**
 * Answers "is this token revoked?" from memory: each user's current token epoch (read once,
 * then kept until a revocation event names the user), and the sets of revoked token ids and
 * ended sessions. A background poll of the revocation events keeps it in step with other processes.
 */
export class RevocationList {
  private readonly epochs = new Map<number, number | undefined>();
  private readonly revokedJtis = new Map<string, number>();
  /** Ended sessions, until their tokens would have expired anyway. */
  private readonly endedSids = new Map<string, number>();
  private lastEventId = 0;
  /** Event ids below the last one read that were not there yet, and since when they are waited for. */
  private readonly gaps = new Map<number, number>();
  /** Counts forgets, so that an epoch read while one happened is not cached stale. */
  private forgets = 0;
  private timers: NodeJS.Timeout[] = [];
  private polling?: Promise<void>;

  constructor(
    private readonly store: RevocationStore,
    private readonly clock: Clock,
    private readonly events: EventHub,
  ) {
    events.on('tokensRevoked', (uid) => this.forgetEpoch(uid));
  }

  async start(): Promise<void> {
    this.lastEventId = await this.store.lastEventId();
    for (const e of await this.store.liveTokens(new Date(this.clock()))) this.learn(e);
    await this.prune();
    this.timers = [
      setInterval(() => void this.poll().catch(() => {}), REVOCATION_POLL_MS),
      setInterval(() => void this.prune().catch(() => {}), 3_600_000),
    ];
    for (const t of this.timers) t.unref();
  }

  stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    return this.polling ?? Promise.resolve();
  }

  /**
   * True when the user is gone, or has revoked since `epoch`, or the token `jti` itself was
   * revoked, or its session `sid` ended (without a jti: whether what was verified at `epoch` still stands).
   */
  async isRevoked(uid: number, epoch: number, jti?: string, sid?: string): Promise<boolean> {
    const known = this.knownRevoked(uid, epoch, jti, sid);
    if (known !== undefined) return known;
    const forgets = this.forgets;
    const current = await this.store.tokenEpoch(uid);
    if (forgets === this.forgets) {
      if (this.epochs.size >= EPOCH_CACHE_SIZE) this.epochs.delete(this.epochs.keys().next().value!);
      this.epochs.set(uid, current);
    }
    return revokedAt(epoch, current);
  }

  /** isRevoked from memory alone, without waiting: undefined when the user's epoch is not known here yet. */
  knownRevoked(uid: number, epoch: number, jti?: string, sid?: string): boolean | undefined {
    if (jti !== undefined && this.revokedJtis.has(jti)) return true;
    if (sid !== undefined && this.endedSids.has(sid)) return true;
    if (!this.epochs.has(uid)) return undefined;
    return revokedAt(epoch, this.epochs.get(uid));
  }

  /** A user's tokens were revoked: its epoch is read again when next asked. */
  private forgetEpoch(uid: number): void {
    this.forgets++;
    this.epochs.delete(uid);
  }

  async revokeToken(jti: string, expiresAt: Date): Promise<void> {
    await this.store.revokeToken(jti, expiresAt);
    this.revokedJtis.set(jti, expiresAt.getTime());
  }

  /** A session this process ended (and wrote the event of): its tokens are refused here at once. */
  sessionEnded(sid: string, tokensLiveUntil: Date): void {
    this.endedSids.set(sid, tokensLiveUntil.getTime());
  }

  /** A revocation event of no user: a token or a session. */
  private learn(e: RevocationEvent): void {
    if (!e.expiresAt) return;
    if (e.jti) this.revokedJtis.set(e.jti, e.expiresAt.getTime());
    if (e.sid) this.endedSids.set(e.sid, e.expiresAt.getTime());
  }

  /** Reads new events; runs on the timer, and directly in tests. */
  poll(): Promise<void> {
    this.polling ??= this.readEvents().finally(() => (this.polling = undefined));
    return this.polling;
  }

  private async readEvents(): Promise<void> {
    // Ids skipped before: a transaction that took its id earlier may commit later (PostgreSQL), or never (rolled back).
    const late = await this.store.eventsIn([...this.gaps.keys()]);
    for (;;) {
      const events = [...late.splice(0), ...(await this.store.eventsAfter(this.lastEventId, 1000))];
      for (const e of events) {
        this.gaps.delete(e.id);
        if (e.uid !== null) {
          // Another process (or this one) changed the user: what this one knows of it is old.
          this.forgetEpoch(e.uid);
          this.events.emit('userChanged', e.uid);
        }
        this.learn(e);
        if (e.id > this.lastEventId) {
          for (let skipped = this.lastEventId + 1; skipped < e.id && this.gaps.size < MAX_GAPS; skipped++)
            this.gaps.set(skipped, performance.now());
          this.lastEventId = e.id;
        }
      }
      if (events.length < 1000) break;
    }
    const waited = performance.now() - GAP_WAIT_MS;
    for (const [id, since] of this.gaps) if (since < waited) this.gaps.delete(id);
    const now = this.clock();
    for (const [jti, exp] of this.revokedJtis) if (exp <= now) this.revokedJtis.delete(jti);
    for (const [sid, exp] of this.endedSids) if (exp <= now) this.endedSids.delete(sid);
  }

  /** Drops old rows from the store; a node calls this now and then. */
  prune(): Promise<void> {
    const now = this.clock();
    return this.store.prune(new Date(now), new Date(now - DAY_MS));
  }
}

/** The one rule of a user's tokens: one of another epoch than the user's current one (or of a user that is gone) is revoked. */
function revokedAt(epoch: number, current: number | undefined): boolean {
  return current === undefined || epoch !== current;
}
