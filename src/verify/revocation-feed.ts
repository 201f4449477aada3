import { type ServiceCredentials, ServiceLogin } from './service-login.js';

/** Credentials of a user with the token_verifier role, for the revocation feed. */
export interface FeedCredentials extends ServiceCredentials {
  /** How often to ask for new revocations, in milliseconds (default 1000). */
  pollMs?: number;
}

interface FeedPage {
  cursor: string;
  more: boolean;
  events: (
    | { type: 'token'; jti: string; exp: number }
    | { type: 'user'; uid: number; ver: number | null }
    | { type: 'session'; sid: string; exp: number }
  )[];
}

/**
 * Follows Tessera's revocation feed (GET /v1/revocations) with a cursor, so that a service
 * refuses a revoked token within about a poll interval without asking Tessera per token.
 * It logs in with its own credentials (7.22 format) and renews its token before it ends.
 * While Tessera cannot be reached it keeps what it knew and catches up afterwards.
 */
export class RevocationFeed {
  private readonly revokedJtis = new Map<string, number>();
  /** Ended sessions (sid → until when their tokens could live). */
  private readonly endedSids = new Map<string, number>();
  /** uid → the lowest `ver` still valid; null: none (the user is gone). */
  private readonly validFrom = new Map<number, number | null>();
  private cursor?: string;
  private readonly login: ServiceLogin;
  private started?: Promise<void>;
  private timer?: NodeJS.Timeout;

  constructor(
    loginUrl: string,
    private readonly feedUrl: string,
    private readonly credentials: FeedCredentials,
  ) {
    this.login = new ServiceLogin(loginUrl, credentials);
  }

  /** Resolves once the feed has been read to its end the first time. */
  ready(): Promise<void> {
    this.started ??= this.poll().then(
      () => {
        this.timer = setInterval(() => void this.poll().catch(() => {}), this.credentials.pollMs ?? 1000);
        this.timer.unref();
      },
      (err: unknown) => {
        this.started = undefined; // the next token tries again
        throw err;
      },
    );
    return this.started;
  }

  isRevoked(claims: { uid: number; ver?: number; jti?: string; sid?: string }): boolean {
    if (claims.jti !== undefined && this.revokedJtis.has(claims.jti)) return true;
    if (claims.sid !== undefined && this.endedSids.has(claims.sid)) return true;
    if (!this.validFrom.has(claims.uid)) return false;
    const from = this.validFrom.get(claims.uid);
    return from === null || (claims.ver ?? -1) < from!;
  }

  close(): void {
    clearInterval(this.timer);
  }

  private async poll(): Promise<void> {
    for (;;) {
      const url = new URL(this.feedUrl);
      if (this.cursor) url.searchParams.set('after', this.cursor);
      const res = await fetch(url, { headers: { authorization: await this.login.authorization() } });
      if (res.status === 401) this.login.forget();
      if (!res.ok) throw new Error(`the revocation feed answered ${res.status}`);
      const page = (await res.json()) as FeedPage;
      for (const e of page.events) {
        if (e.type === 'token') this.revokedJtis.set(e.jti, e.exp * 1000);
        else if (e.type === 'session') this.endedSids.set(e.sid, e.exp * 1000);
        else if (e.type === 'user') this.validFrom.set(e.uid, e.ver);
      }
      this.cursor = page.cursor;
      if (!page.more) break;
    }
    const now = Date.now();
    for (const [jti, exp] of this.revokedJtis) if (exp < now - 60_000) this.revokedJtis.delete(jti);
    for (const [sid, exp] of this.endedSids) if (exp < now - 60_000) this.endedSids.delete(sid);
  }
}
