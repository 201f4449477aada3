import { randomBytes } from 'node:crypto';
import type { Actor } from '../access/actor.js';
import { holds } from '../access/permissions.js';
import { type AuditLog, actorOf, type RequestContext } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import {
  ForbiddenError,
  InvalidTokenError,
  SessionExpiredError,
  SessionNotFoundError,
  UnauthorizedActionError,
} from '../errors.js';
import type { PolicyService } from '../policy/policy-service.js';
import { type TokenClaims, TTL_MAX_SECONDS } from '../tokens/claims.js';
import type { RevocationList } from '../tokens/revocation-list.js';
import type { User } from '../users/user.js';
import type { UserStore } from '../users/user-store.js';
import type { Session, SessionOfUser } from './session.js';
import type { SessionStore } from './session-store.js';

/** How long after an end a token of the ended session could still be within its exp: its longest ttl, and a leeway. */
const TOKENS_OUTLIVE_MS = (TTL_MAX_SECONDS + 300) * 1000;
/** Sessions over are kept this long (then pruned). */
const KEPT_AFTER_MS = 86_400_000;
/**
 * A user's live sessions at most (the newest): past it, a login of the API joins the newest
 * session of its address and realm, or ends the oldest (as any end: its tokens refused everywhere).
 */
export const MAX_SESSIONS_PER_USER = 100;
/** A user's live sessions are counted at every this many of its logins on a node: up to this many more a node. */
export const COUNT_EVERY = 10;
/** Users whose logins since their last count a node keeps; past it the counts start again. */
const MAX_COUNTED = 10_000;

export interface SessionDeps {
  store: SessionStore;
  policy: PolicyService;
  revocations: Pick<RevocationList, 'sessionEnded'>;
  users: Pick<UserStore, 'revokeTokens' | 'revokeEveryone' | 'getByUid'>;
  /** Who may see and end whose sessions: the users' own rules. */
  accounts: {
    view(actor: Actor, uid: number, read: (uid: number) => Promise<User | undefined>): Promise<User>;
    assertMayManage(actor: Actor | null, target: User): void;
  };
  audit: AuditLog;
  clock: Clock;
}

/** A session as a token's issue needs it: its id, whether it is the console's, and the ttl it allows now. */
export interface Issued {
  sid: string;
  console: boolean;
  ttl: number;
}

/**
 * Sessions: each login starts one, bounded by session_max_lifetime_minutes from the login
 * (refresh_jwt shortens the ttl to it, then refuses with session_expired; a login's own token
 * has the ttl asked, as the product's contract says); who may see a
 * user sees its sessions, who may manage it ends them (and users their own), an admin ends
 * every session of the cluster. An end reaches token checks as revocations do: here at
 * once, on other nodes within their poll of the revocation events.
 */
export class SessionService {
  /** Each user's logins here since its live sessions were last counted, and what the count said. */
  private readonly counted = new Map<number, { logins: number; crowded: boolean }>();

  constructor(private readonly deps: SessionDeps) {}

  /**
   * A login's session. Its token gets the ttl asked (exp = iat + ttl, the product's contract), even
   * past the lifetime: refreshes are what the lifetime bounds. A user past MAX_SESSIONS_PER_USER
   * live sessions (a storm of logins) costs no more rows a login: an API login joins the newest
   * session of its address and realm, and one that starts a session ends the oldest.
   */
  async start(
    user: User,
    realm: string,
    ctx: RequestContext,
    console: boolean,
    ttl: number,
    /** When its login was: now, unless the session carries on a login made before sessions existed. */
    begun?: Date,
    /** The API key the login presented. */
    apiKeyId: string | null = null,
  ): Promise<Issued> {
    const now = this.deps.clock();
    const endsAt = now + Math.max(await this.lifetimeMs(), ttl * 1000);
    const at = new Date(now);
    const crowded = await this.crowded(user.uid, at);
    if (crowded && !console) {
      const joined = await this.deps.store.latestFrom(user.uid, ctx.ip, realm, apiKeyId, at);
      if (joined) {
        await this.deps.store.refreshed(joined.id, at, new Date(Math.max(joined.endsAt.getTime(), endsAt)));
        return { sid: joined.id, console: false, ttl };
      }
    }
    const sid = randomBytes(16).toString('base64url');
    await this.deps.store.create({
      id: sid,
      uid: user.uid,
      realm,
      ip: ctx.ip,
      userAgent: ctx.userAgent ?? null,
      console,
      startedAt: begun ?? at,
      refreshedAt: at,
      lastSeenAt: at,
      endsAt: new Date(endsAt),
      endedAt: null,
      apiKeyId,
    });
    if (crowded)
      for (const oldest of await this.deps.store.beyond(user.uid, MAX_SESSIONS_PER_USER, at)) await this.endOne(oldest);
    return { sid, console, ttl };
  }

  /**
   * A refresh of the token's session: refused when the session was ended or is past its
   * lifetime (as the setting is now), else the ttl shortened to what is left of it. A token
   * issued before sessions existed starts one.
   */
  async renew(token: TokenClaims, user: User, realm: string, ctx: RequestContext, ttl: number): Promise<Issued> {
    // A token issued before sessions: its session began at its issue, not now (a login's age is what its session says).
    if (token.sid === undefined) return this.start(user, realm, ctx, false, ttl, new Date(token.iat * 1000));
    const session = await this.deps.store.get(token.sid);
    const now = this.deps.clock();
    if (!session || session.endedAt !== null || session.uid !== user.uid)
      throw new InvalidTokenError('This session was ended: log in again');
    // The lifetime as it is set now: a change applies to a session's next refresh.
    const bound = session.startedAt.getTime() + (await this.lifetimeMs());
    if (bound <= now) throw new SessionExpiredError();
    // The row's end stays the latest that any of its tokens lives.
    await this.deps.store.refreshed(session.id, new Date(now), new Date(Math.max(session.endsAt.getTime(), bound)));
    return {
      sid: session.id,
      console: session.console,
      ttl: Math.max(1, Math.min(ttl, Math.floor((bound - now) / 1000))),
    };
  }

  /** A user's live sessions, for who may see the user (itself, or view_user_info; null: the local CLI). */
  async list(actor: Actor | null, uid: number): Promise<Session[]> {
    if (actor) await this.deps.accounts.view(actor, uid, (u) => this.deps.users.getByUid(u));
    return this.deps.store.active(uid, new Date(this.deps.clock()));
  }

  /**
   * Every user's live sessions, the latest seen first (at most `limit`), with whose they are: for
   * who may list every user (view_all_users_info), as GET /v1/users; null: the local CLI.
   */
  async listEvery(actor: Actor | null, limit: number): Promise<SessionOfUser[]> {
    if (actor && !holds(actor.rights, 'view_all_users_info')) throw new ForbiddenError();
    return this.deps.store.everyActive(new Date(this.deps.clock()), limit);
  }

  /** Ends one of a user's sessions: the user itself, or who may manage it. */
  async end(actor: Actor | null, uid: number, sid: string, ctx: RequestContext): Promise<void> {
    const target = await this.mayEnd(actor, uid);
    const session = await this.deps.store.get(sid);
    if (!session || session.uid !== uid || session.endedAt !== null) throw new SessionNotFoundError();
    await this.endOne(session.id);
    this.deps.audit.record(ctx, {
      event: 'session_end',
      outcome: 'success',
      ...actorOf(actor),
      uid,
      username: target.username,
      target: `session ${sid}`,
    });
  }

  /** Ends every session of a user at once (its token epoch rises: every token, Basic needs no new password). */
  async endAllOf(actor: Actor | null, uid: number, ctx: RequestContext): Promise<number> {
    const target = await this.mayEnd(actor, uid);
    const ended = (await this.deps.store.active(uid, new Date(this.deps.clock()))).length;
    await this.deps.users.revokeTokens(uid); // and its sessions are marked ended with them
    this.deps.audit.record(ctx, {
      event: 'session_end',
      outcome: 'success',
      ...actorOf(actor),
      uid,
      username: target.username,
      target: 'every session',
    });
    return ended;
  }

  /** The worst day's button: every session of every user ends; each logs in again. For admins (and the CLI). */
  async endEverySession(actor: Actor | null, ctx: RequestContext): Promise<number> {
    if (actor && !actor.rights.includes('admin'))
      throw new UnauthorizedActionError('Only an admin ends every session of the cluster');
    // Every user's epoch raised in one transaction (a user event each, which every verifier already reads): ordered by the store, not by a clock.
    const ended = await this.deps.store.countLive(new Date(this.deps.clock()));
    await this.deps.users.revokeEveryone();
    this.deps.audit.record(ctx, {
      event: 'sessions_end_all',
      outcome: 'success',
      ...actorOf(actor),
      target: `${ended} sessions`,
    });
    return ended;
  }

  /** A logout ends the session its token belongs to. */
  async endOwn(token: TokenClaims): Promise<void> {
    if (token.sid !== undefined) await this.endOne(token.sid);
  }

  /** Ends a session whatever asks (an idle console's, a logout's). */
  async endOne(sid: string): Promise<void> {
    const at = new Date(this.deps.clock());
    await this.deps.store.end(sid, at, new Date(at.getTime() + TOKENS_OUTLIVE_MS));
    this.deps.revocations.sessionEnded(sid, new Date(at.getTime() + TOKENS_OUTLIVE_MS));
  }

  /** Forgets sessions over for a day; a node calls this now and then. */
  prune(): Promise<void> {
    return this.deps.store.prune(new Date(this.deps.clock() - KEPT_AFTER_MS));
  }

  /** Whether the user has MAX_SESSIONS_PER_USER live sessions, as last counted (every COUNT_EVERY logins here). */
  private async crowded(uid: number, now: Date): Promise<boolean> {
    const seen = this.counted.get(uid) ?? { logins: COUNT_EVERY, crowded: false };
    if (++seen.logins >= COUNT_EVERY) {
      seen.logins = 0;
      seen.crowded = (await this.deps.store.countLiveOf(uid, now)) >= MAX_SESSIONS_PER_USER;
    }
    if (this.counted.size >= MAX_COUNTED && !this.counted.has(uid)) this.counted.clear();
    this.counted.set(uid, seen);
    return seen.crowded;
  }

  private async lifetimeMs(): Promise<number> {
    return (await this.deps.policy.get()).session_max_lifetime_minutes * 60_000;
  }

  /** The user whose session it is, when `actor` may end its sessions: itself, or who may manage it. */
  private async mayEnd(actor: Actor | null, uid: number): Promise<User> {
    if (actor === null || actor.uid === uid) {
      const user = await this.deps.users.getByUid(uid);
      if (!user) throw new SessionNotFoundError();
      return user;
    }
    const target = await this.deps.accounts.view(actor, uid, (u) => this.deps.users.getByUid(u));
    this.deps.accounts.assertMayManage(actor, target);
    return target;
  }
}
