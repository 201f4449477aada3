import type { AuditRecord, RequestContext } from './audit/audit-log.js';
import type { RealmName } from './auth/realms/realm.js';

/** How a token check ended. */
export type TokenCheck = 'valid' | 'invalid' | 'expired' | 'revoked';

/** How one directory check ended (a login, a Basic call past cache_ttl, a refresh). */
export type DirectoryOutcome = 'success' | 'invalid_credentials' | 'no_mapped_group' | 'unavailable';

/**
 * What the parts of a node tell each other. The stores and services announce; the caches
 * that must forget, and the metrics, listen. Listeners are added when they are made, before
 * anything is announced, and never throw.
 */
export interface TesseraEvents {
  /** A user changed: here (after the commit), or elsewhere as the revocation events say. */
  userChanged: [uid: number];
  /** A login of the user was recorded here (its last_login, and nothing else, changed). */
  loginRecorded: [uid: number, at: Date];
  /** This process ended every token of a user (its token epoch rose). */
  tokensRevoked: [uid: number];
  audited: [record: AuditRecord, ctx?: RequestContext];
  tokenIssued: [alg: string];
  tokenChecked: [result: TokenCheck, cached: boolean];
  /** Right credentials, from the verified-credentials cache or checked by their realm in full. */
  credentialsVerified: [realm: RealmName, cached: boolean];
  directoryChecked: [outcome: DirectoryOutcome, seconds: number];
  /** Events of the event log that never reached the store: a write failed, or the queue was full. */
  eventsLost: [reason: 'write_failed' | 'queue_full', count: number];
}

type Listener<K extends keyof TesseraEvents> = (...args: TesseraEvents[K]) => void;

/** The one channel of a node's announcements: made first, handed to every part that announces or listens. */
export class EventHub {
  private readonly listeners: { [K in keyof TesseraEvents]?: Listener<K>[] } = {};

  on<K extends keyof TesseraEvents>(event: K, listener: Listener<K>): void {
    ((this.listeners[event] ??= []) as Listener<K>[]).push(listener);
  }

  emit<K extends keyof TesseraEvents>(event: K, ...args: TesseraEvents[K]): void {
    const listeners = this.listeners[event] as Listener<K>[] | undefined;
    if (listeners) for (const listener of listeners) listener(...args);
  }
}
