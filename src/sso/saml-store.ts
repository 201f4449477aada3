import { createHash, randomBytes } from 'node:crypto';
import type { CacheItem, CacheProvider } from '@node-saml/node-saml';
import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';

/** What a logout request names of a session: the NameID as the identity provider gave it, and its session. */
export interface SsoSession {
  nameID: string;
  nameIDFormat: string;
  nameQualifier?: string;
  spNameQualifier?: string;
  sessionIndex?: string;
}

const iso = (ms: number) => new Date(ms).toISOString();
const hashOf = (code: string) => createHash('sha256').update(code).digest('base64url');

/**
 * What SSO keeps in the store, so that any node answers any step of a sign-in and each step
 * happens once across all of them: the requests sent, the assertions consumed, the codes
 * that hand a sign-in to the console, the last session of each user.
 */
export class SamlStore {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** How long an authentication request may be answered: the product's three minutes. */
    private readonly requestMs: number,
  ) {}

  /** node-saml's cache of the requests it sent (key: the request's ID; value: its IssueInstant), in the store. */
  requestCache(): CacheProvider {
    return {
      saveAsync: async (key: string, value: string): Promise<CacheItem | null> => {
        const now = this.clock();
        await this.db.deleteFrom('saml_requests').where('expires_at', '<=', iso(now)).execute();
        await this.db.insertInto('saml_requests').values({ id: key, issued_at: value, expires_at: iso(now + this.requestMs) }).execute();
        return { value, createdAt: now };
      },
      getAsync: async (key: string): Promise<string | null> => {
        const row = await this.db.selectFrom('saml_requests').select('issued_at').where('id', '=', key).where('expires_at', '>', iso(this.clock())).executeTakeFirst();
        return row?.issued_at ?? null;
      },
      removeAsync: async (key: string | null): Promise<string | null> => {
        if (key === null) return null;
        const row = await this.db.deleteFrom('saml_requests').where('id', '=', key).returning('issued_at').executeTakeFirst();
        return row?.issued_at ?? null;
      },
    };
  }

  /** Uses an assertion once, on every node: false when it was used before. Kept until it expires anyway. */
  async consumeAssertion(id: string, expiresAt: number): Promise<boolean> {
    const now = this.clock();
    await this.db.deleteFrom('saml_assertions').where('expires_at', '<=', iso(now)).execute();
    const row = await this.db
      .insertInto('saml_assertions')
      .values({ id, expires_at: iso(Math.max(expiresAt, now)) })
      .onConflict((oc) => oc.column('id').doNothing())
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }

  /** A one-time code for a sign-in, good for `ttlMs`; only its hash is kept. */
  async createSignIn(uid: number, tokenEpoch: number, ttlMs: number): Promise<string> {
    const now = this.clock();
    const code = randomBytes(32).toString('base64url');
    await this.db.deleteFrom('sso_sign_ins').where('expires_at', '<=', iso(now)).execute();
    await this.db.insertInto('sso_sign_ins').values({ code_hash: hashOf(code), uid, token_epoch: tokenEpoch, expires_at: iso(now + ttlMs) }).execute();
    return code;
  }

  /** The sign-in a code stands for, once: undefined when unknown, used or expired. */
  async takeSignIn(code: string): Promise<{ uid: number; tokenEpoch: number } | undefined> {
    const row = await this.db
      .deleteFrom('sso_sign_ins')
      .where('code_hash', '=', hashOf(code))
      .where('expires_at', '>', iso(this.clock()))
      .returning(['uid', 'token_epoch'])
      .executeTakeFirst();
    return row && { uid: Number(row.uid), tokenEpoch: Number(row.token_epoch) };
  }

  async saveSession(uid: number, session: SsoSession): Promise<void> {
    const json = JSON.stringify(session);
    await this.db
      .insertInto('sso_sessions')
      .values({ uid, session: json, created_at: iso(this.clock()) })
      .onConflict((oc) => oc.column('uid').doUpdateSet({ session: json, created_at: iso(this.clock()) }))
      .execute();
  }

  /** The user's last SSO session, once (its logout names it). */
  async takeSession(uid: number): Promise<SsoSession | undefined> {
    const row = await this.db.deleteFrom('sso_sessions').where('uid', '=', uid).returning('session').executeTakeFirst();
    return row && (JSON.parse(row.session) as SsoSession);
  }
}
