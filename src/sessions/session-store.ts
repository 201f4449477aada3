import type { Session, SessionOfUser } from './session.js';

/** Sessions as the store keeps them, for every node. */
export interface SessionStore {
  create(session: Session): Promise<void>;
  get(sid: string): Promise<Session | undefined>;
  /** A user's sessions not ended and not past their end, newest first. */
  active(uid: number, now: Date): Promise<Session[]>;
  /** Every user's sessions not ended and not past their end, the latest seen first, at most `limit`, with the user's name and email. */
  everyActive(now: Date, limit: number): Promise<SessionOfUser[]>;
  /** A refresh: its time, and the end of the latest token of it. */
  refreshed(sid: string, at: Date, endsAt: Date): Promise<void>;
  /** The last request seen with one of its tokens (only ever moves forward). */
  seen(sid: string, at: Date): Promise<void>;
  /** Ends one session and tells every node (a revocation event for its sid, kept until `tokensLiveUntil`); false when it was over already. */
  end(sid: string, at: Date, tokensLiveUntil: Date): Promise<boolean>;
  /** How many sessions are live now. */
  countLive(now: Date): Promise<number>;
  /** How many of a user's sessions are live now. */
  countLiveOf(uid: number, now: Date): Promise<number>;
  /** The user's newest live session of the API (not the console's) from this address and realm. */
  /** The newest live session of an API login from this address, realm and key (null: none): one a login in a storm joins. */
  latestFrom(uid: number, ip: string, realm: string, apiKeyId: string | null, now: Date): Promise<Session | undefined>;
  /** The ids of a user's live sessions past its newest `keep`, oldest last. */
  beyond(uid: number, keep: number, now: Date): Promise<string[]>;
  /** Forgets sessions over (ended or past their end) before `before`. */
  prune(before: Date): Promise<void>;
}
