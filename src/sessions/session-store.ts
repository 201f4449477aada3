import type { Session } from './session.js';

/** Sessions as the store keeps them, for every node. */
export interface SessionStore {
  create(session: Session): Promise<void>;
  get(sid: string): Promise<Session | undefined>;
  /** A user's sessions not ended and not past their end, newest first. */
  active(uid: number, now: Date): Promise<Session[]>;
  /** A refresh: its time, and the end of the latest token of it. */
  refreshed(sid: string, at: Date, endsAt: Date): Promise<void>;
  /** The last request seen with one of its tokens (only ever moves forward). */
  seen(sid: string, at: Date): Promise<void>;
  /** Ends one session and tells every node (a revocation event for its sid, kept until `tokensLiveUntil`); false when it was over already. */
  end(sid: string, at: Date, tokensLiveUntil: Date): Promise<boolean>;
  /** How many sessions are live now. */
  countLive(now: Date): Promise<number>;
  /**
   * Keeps a user's newest `keep` sessions that are not ended and forgets the older ones: they
   * refresh no more (nor does a console token of theirs pass), and their last tokens run out
   * at their exp. A flood of logins of one account never grows the store past that.
   */
  trim(uid: number, keep: number): Promise<void>;
  /** Forgets sessions over (ended or past their end) before `before`. */
  prune(before: Date): Promise<void>;
}
