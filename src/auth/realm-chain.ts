import type { RealmName } from '../access/realm-name.js';
import type { AuditLog, RequestContext } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import { Deadline } from '../deadline.js';
import {
  AccountLockedError,
  MfaEnrolmentRequiredError,
  MfaRequiredError,
  MissingCredentialsError,
  PasswordExpiredError,
} from '../errors.js';
import type { EventHub } from '../events.js';
import type { PolicyService } from '../policy/policy-service.js';
import { isLocked, isPasswordExpired, secondFactorOf, type User, unlocksInSeconds } from '../users/user.js';
import { inTime } from './guards/in-time.js';
import { claimOf, isNotMine, type Proof, passwordProof, type Realm, type Success, type Trail } from './realms/realm.js';

declare module '../events.js' {
  interface TesseraEvents {
    /** Right credentials, from the verified-credentials cache or checked by their realm in full. */
    credentialsVerified: [realm: RealmName, cached: boolean];
  }
}

/** Who a proof showed the caller to be, and which realm said so. */
export interface Authenticated {
  user: User;
  realm: RealmName;
  /** The API key that proved it: `user` has the key's rights. */
  apiKeyId?: string;
  /** The proof stands until then (an API key's expiry): no token of it lives longer. */
  until?: Date;
  /** The addresses the proof is taken from (an API key's allowed_cidrs): its tokens are taken from those only. */
  cidrs?: readonly string[];
  /** Proven by a password (here or the directory's): a second factor may be asked after it. */
  byPassword?: boolean;
}

export interface ChainDeps {
  /** The ways in, each behind the guards of its kind of proof, in the order they are asked. */
  realms: readonly Realm[];
  policy: Pick<PolicyService, 'fresh' | 'get'>;
  audit: AuditLog;
  events: EventHub;
  clock: Clock;
  /** The one deadline of a login: every wait inside it gets the time that is left. */
  loginTimeoutMs: number;
}

export interface AuthenticateOptions {
  /** 'login': POST /v1/users/authorize; 'request': credentials on any other request. */
  purpose: 'login' | 'request';
  /** For the change of an expired password, which needs the old one proven. */
  allowExpired?: boolean;
  deadline?: Deadline;
}

/**
 * The realm chain: each proof of identity is offered to the realms in order until one says
 * it is its own (the model: Elasticsearch's AuthenticationService). What a kind of proof
 * needs around its check — the verified-credentials cache, single flight, the throttle, the
 * lockout, the failure budget — wraps its realms (auth/guards/), so that the chain itself
 * only loops, within one deadline, and says what every realm's answer means the same way:
 * a locked account or an expired password refused, a change the proof made recorded, every
 * success counted by realm, every refusal audited with its realm and reason.
 */
export class RealmChain {
  constructor(private readonly deps: ChainDeps) {}

  /**
   * Remembered credentials of an account whose facts this process has loaded, without
   * waiting; undefined when anything is not known (or does not admit them): `authenticate`
   * then decides, and says why.
   */
  known(proof: Proof): Authenticated | undefined {
    const rules = this.deps.policy.fresh();
    if (!rules) return undefined;
    for (const realm of this.deps.realms) {
      const found = realm.known?.(proof);
      if (!found) continue;
      if (found.byPassword && isPasswordExpired(found.user, rules, new Date(this.deps.clock()))) return undefined;
      // A password of a user with a second factor (or whose role requires one) acts for nothing: refused by `authenticate`.
      if (found.byPassword && secondFactorOf(found.user)) return undefined;
      this.deps.events.emit('credentialsVerified', found.realm, true);
      return keyed({ user: found.user, realm: found.realm }, found);
    }
    return undefined;
  }

  /** Who the proof shows the caller to be, through every guard; throws the refusal with its code. */
  async authenticate(proof: Proof, ctx: RequestContext, options: AuthenticateOptions): Promise<Authenticated> {
    const deadline = options.deadline ?? Deadline.after(this.deps.loginTimeoutMs);
    const trail: Trail = {};
    try {
      for (const realm of this.deps.realms) {
        const verdict = await realm.authenticate(proof, { purpose: options.purpose, ctx, deadline, trail });
        if (verdict.outcome === 'not_mine') continue;
        if (verdict.outcome === 'success') return await this.admit(verdict, ctx, options, deadline);
        trail.reason = verdict.reason;
        throw verdict.error;
      }
      throw new MissingCredentialsError();
    } catch (err) {
      const reason =
        trail.reason ?? (err as { auditReason?: string }).auditReason ?? (err as { code?: string }).code ?? 'error';
      this.deps.audit.record(ctx, {
        event: options.purpose === 'login' ? 'authorize' : 'authenticate',
        outcome: 'failure',
        ...claimOf(proof),
        reason,
        ...(trail.realm && { realm: trail.realm }),
      });
      throw err;
    }
  }

  /** Whether any realm takes this kind of proof now (a certificate where the cluster takes none is no credentials). */
  async takes(proof: Proof): Promise<boolean> {
    for (const realm of this.deps.realms) if (await realm.supports(proof)) return true;
    return false;
  }

  /** A user's current password, confirmed as a login's would be, for a change of it (an expired one confirms). */
  async confirmPassword(username: string, password: string, ctx: RequestContext): Promise<User> {
    return (await this.authenticate(passwordProof(username, password), ctx, { purpose: 'request', allowExpired: true }))
      .user;
  }

  /** The user as its realm sees it now, at its token's refresh; undefined when it may no longer log in. */
  async refresh(user: User, deadline: Deadline): Promise<User | undefined> {
    for (const realm of this.deps.realms) {
      const refreshed = await realm.refresh(user, deadline);
      if (!isNotMine(refreshed)) return refreshed;
    }
    return undefined;
  }

  /** The realm (other than this store's own) that knows somebody by this name without an account yet: a local name must not take it. */
  async nameTaken(name: string): Promise<RealmName | undefined> {
    const deadline = Deadline.after(this.deps.loginTimeoutMs);
    for (const realm of this.deps.realms) {
      const found = await realm.lookup(name, deadline);
      if (found) return found;
    }
    return undefined;
  }

  /** A realm's yes, as every realm's means the same: what it changed recorded, a locked account refused, an expired password said now (after it was proven right). */
  private async admit(
    success: Success,
    ctx: RequestContext,
    options: AuthenticateOptions,
    deadline: Deadline,
  ): Promise<Authenticated> {
    const { user, realm } = success;
    if (success.changed) {
      this.deps.audit.record(ctx, {
        event: 'user_update',
        outcome: 'success',
        uid: user.uid,
        username: user.username,
        realm,
        ...success.changed,
      });
    }
    const now = new Date(this.deps.clock());
    // Locked while its check ran: refused all the same.
    if (user.lockedUntil && isLocked(user, now)) throw new AccountLockedError(unlocksInSeconds(user.lockedUntil, now));
    this.deps.events.emit('credentialsVerified', realm, success.remembered === true);
    const rules = this.deps.policy.fresh() ?? (await inTime(deadline, this.deps.policy.get()));
    if (success.byPassword && !options.allowExpired && isPasswordExpired(user, rules, now))
      throw new PasswordExpiredError();
    if (success.byPassword) {
      // Any request but a login (and the change of a password, which proves the old one): a password alone never acts
      // for a user with a second factor, or whose role requires one.
      const second = options.purpose === 'request' && !options.allowExpired ? secondFactorOf(user) : undefined;
      if (second === 'challenge')
        throw new MfaRequiredError(
          'This user has a second factor: a password alone is not taken here. Log in (POST /v1/users/authorize, then /v1/users/authorize/mfa) and send the token, or use an API key',
        );
      if (second === 'enrol')
        throw new MfaEnrolmentRequiredError(
          'A role of this user requires a second factor: log in (POST /v1/users/authorize) for a token to enrol one with, then log in again',
        );
      return { user, realm, byPassword: true };
    }
    return keyed({ user, realm }, success);
  }
}

/** A success's API key, when one proved it (one shape for every key's success: the hot path of automation). */
function keyed(found: Authenticated, success: Success): Authenticated {
  if (!success.apiKeyId) return found;
  return {
    user: found.user,
    realm: found.realm,
    apiKeyId: success.apiKeyId,
    until: success.until,
    cidrs: success.cidrs,
  };
}
