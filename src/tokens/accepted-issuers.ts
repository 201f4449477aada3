import type { Clock } from '../clock.js';
import { SettingCache } from '../store/setting-cache.js';
import type { IssuerRecord } from './store-issuer.js';

/** The `iss` and `aud` values a node accepts in a token. */
export interface TokenOrigins {
  /** Reads the store's record again in the background when this copy is over a second old: no token waits for the store. */
  refresh(): void;
  /** Reads it now when this copy is over a second old (a failed read keeps the copy). */
  reload(): Promise<void>;
  /** How many reads of the store's record this copy has taken in: a check that a read came in since. */
  readonly reads: number;
  issuers(now: number): string[];
  audiences(now: number): string[];
  /** Whether a token of this `iss` and `aud` is accepted now (checked on every use of a token verified before). */
  accepts(iss: string, aud: string | string[], now: number): boolean;
  /** The store's issuer, when the store moved to it and this node's own is no longer accepted. */
  movedTo(now: number): string | undefined;
}

/**
 * What a node accepts: the store's current issuer and the one it moved from while that move
 * lasts (`tessera issuer move`) — its own among them, which a node started with the store's
 * (settleIssuer) — read from the store at most once a second, in the background (a store
 * that is away holds up no token check: the last copy holds). A node whose own issuer the
 * store left behind accepts its own tokens no longer than the others do, and issues none
 * (movedTo). Without --audience a token's audience is its issuer's public URL, so the
 * store's issuers are accepted as audiences too; with --audience, only those.
 */
export class AcceptedIssuers implements TokenOrigins {
  private readonly record: SettingCache<IssuerRecord>;
  private reading?: Promise<void>;
  reads = 0;

  constructor(
    private readonly own: { issuer: string; audiences: readonly string[]; audiencesGiven: boolean },
    load: () => Promise<IssuerRecord>,
    clock: Clock,
    /** The record as the node read it when it started. */
    private known: IssuerRecord = {},
  ) {
    this.record = new SettingCache(load, clock);
    this.record.set(known);
  }

  refresh(): void {
    void this.reload();
  }

  async reload(): Promise<void> {
    if (this.record.fresh() !== undefined) return;
    return (this.reading ??= this.record
      .reload()
      .then(
        (record) => {
          this.known = record;
          this.reads += 1;
        },
        () => this.record.set(this.known), // tried again in a second
      )
      .finally(() => {
        this.reading = undefined;
      }));
  }

  issuers(now: number): string[] {
    const { current, previous } = this.known;
    if (current === undefined) return [this.own.issuer];
    return previous && previous.until > now && previous.issuer !== current ? [current, previous.issuer] : [current];
  }

  movedTo(now: number): string | undefined {
    const { current } = this.known;
    return current !== undefined && !this.isIssuer(this.own.issuer, now) ? current : undefined;
  }

  audiences(now: number): string[] {
    return this.own.audiencesGiven
      ? [...this.own.audiences]
      : [...new Set([...this.own.audiences, ...this.issuers(now)])];
  }

  accepts(iss: string, aud: string | string[], now: number): boolean {
    return (
      this.isIssuer(iss, now) &&
      (typeof aud === 'string' ? this.isAudience(aud, now) : aud.some((a) => this.isAudience(a, now)))
    );
  }

  private isIssuer(iss: string, now: number): boolean {
    const { current, previous } = this.known;
    if (current === undefined) return iss === this.own.issuer;
    return iss === current || (previous !== undefined && previous.until > now && iss === previous.issuer);
  }

  private isAudience(aud: string, now: number): boolean {
    return this.own.audiences.includes(aud) || (!this.own.audiencesGiven && this.isIssuer(aud, now));
  }
}

/** One issuer and its audiences, nothing read from a store (tests, tools). */
export function fixedOrigins(issuer: string, audiences: readonly string[]): TokenOrigins {
  return new AcceptedIssuers({ issuer, audiences, audiencesGiven: true }, async () => ({}), Date.now);
}
