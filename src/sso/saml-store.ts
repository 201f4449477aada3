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
export const hashOf = (secret: string) => createHash('sha256').update(secret).digest('base64url');

/** A sign-in waiting for the console: whose, at which token epoch, and for which browser (null: nobody asked for it). */
export interface PendingSignIn {
  uid: number;
  tokenEpoch: number;
  browserHash: string | null;
}

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
        await this.db
          .insertInto('saml_requests')
          .values({ id: key, issued_at: value, expires_at: iso(now + this.requestMs) })
          .execute();
        return { value, createdAt: now };
      },
      getAsync: async (key: string): Promise<string | null> => {
        const row = await this.db
          .selectFrom('saml_requests')
          .select('issued_at')
          .where('id', '=', key)
          .where('expires_at', '>', iso(this.clock()))
          .executeTakeFirst();
        return row?.issued_at ?? null;
      },
      // Kept until it expires: the consumer reads which browser asked after node-saml's check (an answer is used once by its assertion's ID).
      removeAsync: async (key: string | null): Promise<string | null> => key,
    };
  }

  /** The browser that sent this request: the hash of the nonce in its cookie. */
  async bindRequest(id: string, browserHash: string): Promise<void> {
    await this.db.updateTable('saml_requests').set({ browser_hash: browserHash }).where('id', '=', id).execute();
  }

  /** A request sent within the last three minutes (undefined: never sent here, or too old), and the browser that sent it. */
  async requestOf(id: string): Promise<{ browserHash: string | null } | undefined> {
    const row = await this.db
      .selectFrom('saml_requests')
      .select('browser_hash')
      .where('id', '=', id)
      .where('expires_at', '>', iso(this.clock()))
      .executeTakeFirst();
    return row && { browserHash: row.browser_hash };
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
  async createSignIn({ uid, tokenEpoch, browserHash }: PendingSignIn, ttlMs: number): Promise<string> {
    const now = this.clock();
    const code = randomBytes(32).toString('base64url');
    await this.db.deleteFrom('sso_sign_ins').where('expires_at', '<=', iso(now)).execute();
    await this.db
      .insertInto('sso_sign_ins')
      .values({
        code_hash: hashOf(code),
        uid,
        token_epoch: tokenEpoch,
        browser_hash: browserHash,
        expires_at: iso(now + ttlMs),
      })
      .execute();
    return code;
  }

  /** The sign-in a code stands for, left in place: undefined when unknown, used or expired. */
  async signInOf(code: string): Promise<PendingSignIn | undefined> {
    const row = await this.db
      .selectFrom('sso_sign_ins')
      .select(['uid', 'token_epoch', 'browser_hash'])
      .where('code_hash', '=', hashOf(code))
      .where('expires_at', '>', iso(this.clock()))
      .executeTakeFirst();
    return row && { uid: Number(row.uid), tokenEpoch: Number(row.token_epoch), browserHash: row.browser_hash };
  }

  /** Uses the code: false when another request used it first. */
  async takeSignIn(code: string): Promise<boolean> {
    const row = await this.db
      .deleteFrom('sso_sign_ins')
      .where('code_hash', '=', hashOf(code))
      .where('expires_at', '>', iso(this.clock()))
      .returning('code_hash')
      .executeTakeFirst();
    return row !== undefined;
  }

  async saveSession(uid: number, session: SsoSession): Promise<void> {
    const json = JSON.stringify(session);
    await this.db
      .insertInto('sso_sessions')
      .values({ uid, session: json, created_at: iso(this.clock()) })
      .onConflict((oc) => oc.column('uid').doUpdateSet({ session: json, created_at: iso(this.clock()) }))
      .execute();
  }

  /**
   * The user's last SSO session (its logout names it). Kept after a logout: the row also says
   * that the user signed in by SSO, whose tokens a change of the identity provider ends.
   */
  async sessionOf(uid: number): Promise<SsoSession | undefined> {
    const row = await this.db.selectFrom('sso_sessions').select('session').where('uid', '=', uid).executeTakeFirst();
    return row && (JSON.parse(row.session) as SsoSession);
  }
}
