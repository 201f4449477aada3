import { randomBytes } from 'node:crypto';
import type { RequestContext } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import { AccountLockedError, SsoConfirmError, SsoRefusedError } from '../errors.js';
import type { ClientThrottle } from '../guard/client-throttle.js';
import { hashOf, type SamlStore } from '../sso/saml-store.js';
import type { ServiceProvider } from '../sso/service-provider.js';
import { isLocked, unlocksInSeconds } from '../users/user.js';
import type { UserStore } from '../users/user-store.js';
import type { Logins } from './logins.js';
import type { Principal } from './principal.js';
import type { SamlProof } from './realms/realm.js';

/** How long the console has to take a sign-in the identity provider's answer made. */
export const SIGN_IN_CODE_MS = 60_000;

/**
 * An SSO sign-in from the console's point of view: sent to the identity provider, its answer
 * consumed (checked by the realm chain as any login is, recorded, audited) into a one-time
 * code that only the browser's HttpOnly cookie carries, and that code exchanged once by the
 * console for a token it keeps in memory — no token in a URL, a cookie or storage. Signing
 * out ends the token and, where the identity provider has a logout URL, its session there.
 */
export class SsoSignIn {
  constructor(
    private readonly deps: {
      logins: Pick<Logins, 'prove' | 'issue' | 'logout'>;
      provider: Pick<ServiceProvider, 'loginRequest' | 'logoutUrl' | 'verifyLogoutResponse'>;
      store: Pick<SamlStore, 'bindRequest' | 'createSignIn' | 'signInOf' | 'takeSignIn' | 'sessionOf'>;
      users: Pick<UserStore, 'getByUid'>;
      throttle: Pick<ClientThrottle, 'check'>;
      clock: Clock;
    },
  ) {}

  /**
   * Where the browser goes to sign in (the identity provider, with a signed request), and the
   * nonce for its cookie: the sign-in that answers this request is handed to that browser only.
   */
  async start(ctx: RequestContext): Promise<{ url: string; nonce: string }> {
    // Each start signs a request and keeps a row: counted per address like a login.
    await this.deps.throttle.check(ctx.ip);
    const { url, requestId } = await this.deps.provider.loginRequest();
    const nonce = randomBytes(32).toString('base64url');
    await this.deps.store.bindRequest(requestId, hashOf(nonce));
    return { url, nonce };
  }

  /** The identity provider's answer (its SAMLResponse), posted to the consumer at `acsPath`, in; a one-time code for the console out. */
  async consume(samlResponse: string, acsPath: string, ctx: RequestContext): Promise<string> {
    const proof: SamlProof = { kind: 'saml', response: samlResponse, acsPath };
    const { user } = await this.deps.logins.prove(proof, ctx);
    return this.deps.store.createSignIn(
      { uid: user.uid, tokenEpoch: user.tokenEpoch, browserHash: proof.browserHash ?? null },
      SIGN_IN_CODE_MS,
    );
  }

  /**
   * The code, once, for a token: refused when unknown, used, expired, the user changed since,
   * or the sign-in answers another browser's request (its `nonce` is not this one's). One
   * that nobody asked for (IdP-initiated) waits until the person confirms it (`confirmed`).
   */
  async exchange(
    code: string,
    nonce: string | undefined,
    confirmed: boolean,
    ttlSeconds: number,
    ctx: RequestContext,
  ): Promise<string> {
    const signIn = await this.deps.store.signInOf(code);
    const user = signIn && (await this.deps.users.getByUid(signIn.uid));
    if (!signIn || !user || user.tokenEpoch !== signIn.tokenEpoch) {
      throw new SsoRefusedError(
        'sso_refused',
        'This sign-in is over or was used: sign in again',
        'an unknown, used or outdated sign-in code',
      );
    }
    if (signIn.browserHash !== null && (nonce === undefined || hashOf(nonce) !== signIn.browserHash)) {
      throw new SsoRefusedError(
        'sso_refused',
        'This sign-in was started in another browser or tab: sign in again',
        'a sign-in code presented without the nonce of the browser that asked',
      );
    }
    if (signIn.browserHash === null && !confirmed) throw new SsoConfirmError(user.username);
    const now = new Date(this.deps.clock());
    if (user.lockedUntil && isLocked(user, now)) throw new AccountLockedError(unlocksInSeconds(user.lockedUntil, now));
    if (!(await this.deps.store.takeSignIn(code)))
      throw new SsoRefusedError('sso_refused', 'This sign-in was used: sign in again', 'a sign-in code used meanwhile');
    // Only the console exchanges a sign-in: its session is idled out by the server.
    return this.deps.logins.issue(user, 'sso', ctx, ttlSeconds, true);
  }

  /** Ends the token; where the user signed in with SSO and the identity provider has a logout URL, where to send the browser to end it there. */
  async logout(principal: Principal, ctx: RequestContext): Promise<string | undefined> {
    const session = await this.deps.store.sessionOf(principal.uid);
    await this.deps.logins.logout(principal, ctx);
    return session && this.deps.provider.logoutUrl(session).catch(() => undefined);
  }

  verifyLogoutResponse(query: Record<string, string>, rawQuery: string): Promise<void> {
    return this.deps.provider.verifyLogoutResponse(query, rawQuery);
  }
}
