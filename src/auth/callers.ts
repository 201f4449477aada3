import { highest } from '../access/management.js';
import type { RequestContext } from '../audit/audit-log.js';
import { InvalidTokenError, TokenExpiredError } from '../errors.js';
import type { EventHub } from '../events.js';
import type { ConsoleIdle } from '../sessions/console-idle.js';
import type { TokenClaims } from '../tokens/claims.js';
import type { RevocationList } from '../tokens/revocation-list.js';
import type { TokenVerifier } from '../tokens/token-verifier.js';
import type { LastLogins } from '../users/last-logins.js';
import type { Presented } from './credentials.js';
import type { Principal } from './principal.js';
import type { Authenticated, RealmChain } from './realm-chain.js';

/**
 * Who is calling, from what a request presents: a token Tessera issued (verified, not
 * revoked), or a proof its realms check (a password, a client certificate) through the
 * realm chain. `known` answers without waiting from what this process has loaded — the hot
 * path of every request; `identify` loads what is missing, decides, and says why.
 */
export class Callers {
  constructor(
    private readonly deps: {
      chain: RealmChain;
      verifier: Pick<TokenVerifier, 'known' | 'check'>;
      revocations: Pick<RevocationList, 'knownRevoked' | 'isRevoked'>;
      events: EventHub;
      lastLogins: Pick<LastLogins, 'touch'>;
      consoleIdle: Pick<ConsoleIdle, 'active' | 'check'>;
    },
  ) {}

  /** Who the credentials are, from what this process has loaded, when they stand; undefined: ask `identify`, which says why. */
  known(presented: Presented): Principal | undefined {
    if (presented.kind === 'token') {
      const claims = this.deps.verifier.known(presented.token);
      const revoked = claims && this.deps.revocations.knownRevoked(claims.uid, claims.ver, claims.jti, claims.sid);
      if (!claims || revoked === undefined) return undefined;
      const idle = revoked || !isConsoleToken(claims) ? false : this.deps.consoleIdle.active(claims.sid) !== true;
      if (tokenStanding(revoked, idle) !== 'valid') return undefined;
      this.deps.events.emit('tokenChecked', 'valid', true);
      return tokenPrincipal(claims);
    }
    const found = this.deps.chain.known(presented);
    if (found) this.deps.lastLogins.touch(found.user.uid);
    return found && principalOf(found, presented.kind);
  }

  async identify(presented: Presented, ctx: RequestContext): Promise<Principal> {
    if (presented.kind === 'token') return this.checkToken(presented.token);
    const found = await this.deps.chain.authenticate(presented, ctx, { purpose: 'request' });
    this.deps.lastLogins.touch(found.user.uid);
    return principalOf(found, presented.kind);
  }

  /** A verified, unrevoked token's identity; InvalidTokenError says why not. */
  async checkToken(token: string): Promise<Principal> {
    const { verifier, revocations, events } = this.deps;
    let checked: Awaited<ReturnType<TokenVerifier['check']>>;
    try {
      checked = await verifier.check(token);
    } catch (err) {
      if (err instanceof InvalidTokenError)
        events.emit('tokenChecked', err instanceof TokenExpiredError ? 'expired' : 'invalid', false);
      throw err;
    }
    const { claims, cached } = checked;
    const revoked = await revocations.isRevoked(claims.uid, claims.ver, claims.jti, claims.sid);
    // Asked only of a token that stands otherwise: a session found idle is ended.
    const idle = revoked || !isConsoleToken(claims) ? false : !(await this.deps.consoleIdle.check(claims.sid));
    const standing = tokenStanding(revoked, idle);
    events.emit('tokenChecked', standing === 'valid' ? 'valid' : 'revoked', cached);
    if (standing === 'revoked') throw new InvalidTokenError('The token has been revoked');
    if (standing === 'idle')
      throw new InvalidTokenError(
        'The console session ended: idle longer than cm_session_timeout_minutes, or signed out',
      );
    return tokenPrincipal(claims);
  }
}

/** A token of the web console's session (`cm`): the server idles it out. */
function isConsoleToken(claims: TokenClaims): claims is TokenClaims & { sid: string } {
  return claims.cm === true && claims.sid !== undefined;
}

/** The one rule of a verified token, given its facts (loaded from memory or awaited): it stands unless revoked, or its console session idled out. */
export function tokenStanding(revoked: boolean, idle: boolean): 'valid' | 'revoked' | 'idle' {
  return revoked ? 'revoked' : idle ? 'idle' : 'valid';
}

function principalOf({ user, apiKeyId }: Authenticated, via: 'password' | 'certificate' | 'api_key'): Principal {
  return {
    uid: user.uid,
    username: user.username,
    role: highest(user.rights),
    rights: user.rights,
    via,
    apiKeyId,
  };
}

function tokenPrincipal(claims: TokenClaims): Principal {
  return {
    uid: claims.uid,
    username: claims.username,
    role: highest(claims.roles),
    rights: claims.roles,
    via: 'token',
    token: claims,
    ...(claims.akid && { apiKeyId: claims.akid }),
  };
}
