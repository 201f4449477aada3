import { currentUnit } from './unit-of-work.js';

/** How a token check ended. */
export type TokenCheck = 'valid' | 'invalid' | 'expired' | 'revoked';

/**
 * What the parts of a node tell each other. The stores and services announce; the caches
 * that must forget, and the metrics, listen. Listeners are added when they are made, before
 * anything is announced, and never throw. An event whose payload is a type of a higher
 * floor is declared beside its announcer (`declare module '…/events.js'`: the audit log's
 * `audited`, the realm chain's `credentialsVerified`, the LDAP realm's `directoryChecked`),
 * so that this file, on the lowest floor, imports nothing but its neighbour the unit of work.
 */
export interface TesseraEvents {
  /** A user changed: here (after the commit), or elsewhere as the revocation events say. */
  userChanged: [uid: number];
  /** A login of the user was recorded here (its last_login, and nothing else, changed). */
  loginRecorded: [uid: number, at: Date];
  /** This process ended every token of a user (its token epoch rose). */
  tokensRevoked: [uid: number];
  tokenIssued: [alg: string];
  tokenChecked: [result: TokenCheck, cached: boolean];
  /** Events of the event log that never reached the store: a write failed, or the queue was full. */
  eventsLost: [reason: 'write_failed' | 'queue_full', count: number];
  /** What the API's TLS listener serves changed here (its certificate, its minimum TLS version): new connections take it now. */
  listenerTlsChanged: [];
}

type Listener<K extends keyof TesseraEvents> = (...args: TesseraEvents[K]) => void;

/**
 * What makes a cache forget. Announced inside a unit of work (a change not yet committed), it is
 * heard at once (the change's own reads see it) and again after the commit: a read by another
 * request in between, on another connection, saw the rows before the change and must not be kept.
 */
const FORGET: ReadonlySet<keyof TesseraEvents> = new Set(['userChanged', 'tokensRevoked', 'listenerTlsChanged']);

/** The one channel of a node's announcements: made first, handed to every part that announces or listens. */
export class EventHub {
  private readonly listeners: { [K in keyof TesseraEvents]?: Listener<K>[] } = {};

  on<K extends keyof TesseraEvents>(event: K, listener: Listener<K>): void {
    ((this.listeners[event] ??= []) as Listener<K>[]).push(listener);
  }

  emit<K extends keyof TesseraEvents>(event: K, ...args: TesseraEvents[K]): void {
    this.tell(event, args);
    if (FORGET.has(event)) currentUnit()?.afterCommit.push(() => this.tell(event, args));
  }

  private tell<K extends keyof TesseraEvents>(event: K, args: TesseraEvents[K]): void {
    const listeners = this.listeners[event] as Listener<K>[] | undefined;
    if (listeners) for (const listener of listeners) listener(...args);
  }
}
