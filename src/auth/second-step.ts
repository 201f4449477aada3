import { createHash, randomBytes } from 'node:crypto';
import type { RealmName } from '../access/realm-name.js';
import type { AuditLog, RequestContext } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import { Deadline } from '../deadline.js';
import { InvalidMfaCodeError, InvalidMfaTokenError, type MfaChallengeBody, MfaRequiredError } from '../errors.js';
import type { EventHub } from '../events.js';
import { type Lockout, secondFactorKey } from '../guard/lockout.js';
import type { Factor, SecondFactorMethod } from '../mfa/factor.js';
import { sealedAs } from '../mfa/mfa-service.js';
import type { Challenge, MfaStore } from '../mfa/mfa-store.js';
import { passkeys, type RelyingParty } from '../mfa/passkeys.js';
import { recoveryCodeHash } from '../mfa/recovery-codes.js';
import { matchedStep } from '../mfa/totp.js';
import type { PolicyService } from '../policy/policy-service.js';
import type { KeySealer } from '../tokens/key-sealer.js';
import type { User } from '../users/user.js';
import type { UserStore } from '../users/user-store.js';

declare module '../events.js' {
  interface TesseraEvents {
    /** The second step of a login, by its method: accepted, or refused (a wrong or replayed code, a bad mfa_token). */
    secondFactorChecked: [method: SecondFactorMethod | 'none', result: 'accepted' | 'refused'];
  }
}

/** An mfa_token lives this long. */
const CHALLENGE_MS = 5 * 60_000;
/** Wrong answers one mfa_token takes before it is gone (each one also counts toward the lockout). */
const MAX_ATTEMPTS = 5;

/** What the second step of a login takes: its mfa_token and one answer. */
export interface SecondStepAnswer {
  mfa_token: string;
  code?: string | undefined;
  recovery_code?: string | undefined;
  webauthn?: unknown;
}

/** What the second step hands on to the login's tail: who, how, and what the first step asked for. */
export interface SecondStepPassed {
  user: User;
  realm: RealmName;
  ttlSeconds: number;
  console: boolean;
  method: SecondFactorMethod;
}

const digest = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * The second step of a login (Vault's /sys/mfa/validate, Auth0's mfa_token): after a password
 * of a user with a second factor, an mfa_token — single use, for this client, five minutes —
 * and then one answer: a code of an authenticator app, a recovery code, or a passkey's
 * assertion. Each is accepted once across every node (a TOTP step later than the last taken,
 * a recovery code and the token deleted by the store), and a wrong one counts toward the
 * user's lockout as a wrong password does.
 */
export class SecondStep {
  constructor(
    private readonly deps: {
      store: MfaStore;
      sealer: Pick<KeySealer, 'open'>;
      users: Pick<UserStore, 'getByUid'>;
      lockout: Pick<Lockout, 'guarded'>;
      policy: Pick<PolicyService, 'get'>;
      relyingParty: RelyingParty;
      audit: AuditLog;
      events: EventHub;
      clock: Clock;
      loginTimeoutMs: number;
    },
  ) {}

  /** The refusal of a login's first step for a user with a second factor: its challenge, kept for the second. */
  async challenge(
    user: User,
    realm: RealmName,
    ctx: RequestContext,
    asked: { ttlSeconds: number; console: boolean },
  ): Promise<MfaRequiredError> {
    const { store, clock } = this.deps;
    const factors = (await store.listOf(user.uid)).filter((f) => f.confirmed);
    const rp = this.deps.relyingParty;
    const keys = factors.filter((f) => f.type === 'webauthn');
    const webauthn =
      keys.length > 0 && rp.id ? await passkeys.authenticationOptions({ ...rp, id: rp.id }, keys) : undefined;
    const token = randomBytes(32).toString('base64url');
    await store.putChallenge({
      id: digest(token),
      uid: user.uid,
      purpose: 'login',
      client: ctx.ip,
      data: {
        realm,
        ttl: asked.ttlSeconds,
        console: asked.console,
        ...(webauthn && { challenge: webauthn.challenge }),
      },
      attempts: 0,
      expiresAt: new Date(clock() + CHALLENGE_MS),
    });
    const methods: MfaChallengeBody['methods'] = [
      ...(factors.some((f) => f.type === 'totp') ? (['totp'] as const) : []),
      ...(webauthn ? (['webauthn'] as const) : []),
      'recovery_code',
    ];
    this.deps.audit.record(ctx, {
      event: 'mfa_challenge',
      outcome: 'success',
      uid: user.uid,
      username: user.username,
      realm,
    });
    return new MfaRequiredError(
      'This user has a second factor: send the mfa_token with a code (or a recovery code, or a passkey) to POST /v1/users/authorize/mfa',
      { mfa_token: token, methods, ...(webauthn && { webauthn }) },
    );
  }

  /** The second step: the challenge's user, once one answer proves the factor; InvalidMfaCodeError or InvalidMfaTokenError else. */
  async pass(answer: SecondStepAnswer, ctx: RequestContext): Promise<SecondStepPassed> {
    const { store, users, clock } = this.deps;
    const method = methodOf(answer);
    const id = digest(answer.mfa_token);
    const challenge = await store.challenge(id);
    const now = clock();
    const user =
      challenge?.purpose === 'login' && challenge.expiresAt.getTime() > now && challenge.client === ctx.ip
        ? await users.getByUid(challenge.uid)
        : undefined;
    if (!challenge || !user)
      return this.refuse(ctx, method, undefined, 'invalid_mfa_token', new InvalidMfaTokenError());
    // Each answer is reserved before it is checked (one conditional write): a token takes a few answers (a mistyped
    // code), however many arrive at once on however many nodes.
    if (!(await store.reserveAttempt(id, MAX_ATTEMPTS)))
      return this.refuse(ctx, method, user, 'attempts_exhausted', new InvalidMfaTokenError());
    const deadline = Deadline.after(this.deps.loginTimeoutMs);
    const outcome = await this.deps.lockout.guarded(
      // Counted apart from the password's failures: a right password (whose success clears those) must not wipe them.
      { key: secondFactorKey(user), user, policy: await this.deps.policy.get(), ctx, deadline, ownCount: true },
      () => this.check(user, challenge, answer, method, now),
      (result) => result !== 'accepted' && result !== 'token_used',
    );
    if (outcome === 'token_used')
      return this.refuse(ctx, method, user, 'invalid_mfa_token', new InvalidMfaTokenError());
    if (outcome !== 'accepted')
      return this.refuse(ctx, method, user, outcome, new InvalidMfaCodeError(refusalMessage(method)));
    this.deps.events.emit('secondFactorChecked', method, 'accepted');
    this.deps.audit.record(ctx, {
      event: 'mfa_verify',
      outcome: 'success',
      uid: user.uid,
      username: user.username,
      mfa: method,
    });
    const data = challenge.data as { realm: RealmName; ttl: number; console: boolean };
    return { user, realm: data.realm, ttlSeconds: data.ttl, console: data.console, method };
  }

  /** The answer checked (nothing written), then the token taken and the factor's use taken — each once, on any node. */
  private async check(
    user: User,
    challenge: Challenge,
    answer: SecondStepAnswer,
    method: SecondFactorMethod,
    now: number,
  ): Promise<'accepted' | 'wrong' | 'replayed' | 'token_used'> {
    const { store } = this.deps;
    const factors = (await store.listOf(user.uid)).filter((f) => f.confirmed);
    const take = () => store.takeChallenge(challenge.id);
    if (method === 'recovery_code') {
      const hash = recoveryCodeHash(answer.recovery_code ?? '');
      if (!(await this.hasRecoveryCode(user.uid, hash))) return 'wrong';
      if (!(await take())) return 'token_used';
      return (await store.takeRecoveryCode(user.uid, hash)) ? 'accepted' : 'replayed';
    }
    if (method === 'webauthn') {
      const rp = this.deps.relyingParty;
      const expected = challenge.data.challenge;
      if (!rp.id || typeof expected !== 'string') return 'wrong';
      const keys = factors.filter((f) => f.type === 'webauthn');
      const proven = await passkeys.verifyAuthentication(
        { ...rp, id: rp.id },
        answer.webauthn as never,
        expected,
        keys,
      );
      if (!proven) return 'wrong';
      if (!(await take())) return 'token_used';
      await store.used(proven.factor.id, proven.counter, new Date(now));
      return 'accepted';
    }
    const matched = this.totpMatch(factors, answer.code ?? '', now);
    if (!matched) return 'wrong';
    if (!(await take())) return 'token_used';
    return (await store.takeStep(matched.factor.id, matched.step, new Date(now))) ? 'accepted' : 'replayed';
  }

  private totpMatch(
    factors: readonly Factor[],
    code: string,
    now: number,
  ): { factor: Factor; step: number } | undefined {
    for (const factor of factors) {
      if (factor.type !== 'totp' || !factor.secret) continue;
      const { secret } = this.deps.sealer.open<{ secret: string }>(factor.secret, sealedAs(factor.id));
      const step = matchedStep(secret, code, now);
      // A step at or before the last one taken is a code used already (here or on another node).
      if (step !== undefined && (factor.lastStep === null || step > factor.lastStep)) return { factor, step };
    }
    return undefined;
  }

  private async hasRecoveryCode(uid: number, hash: string): Promise<boolean> {
    // Asked without taking it: a wrong answer must not use up the token, a right one is taken after the token is.
    return (await this.deps.store.recoveryCodeHashes(uid)).includes(hash);
  }

  private refuse(
    ctx: RequestContext,
    method: SecondFactorMethod,
    user: User | undefined,
    reason: string,
    error: Error,
  ): never {
    this.deps.events.emit('secondFactorChecked', method, 'refused');
    this.deps.audit.record(ctx, {
      event: 'mfa_verify',
      outcome: 'failure',
      ...(user && { uid: user.uid, username: user.username }),
      mfa: method,
      reason,
    });
    throw error;
  }
}

function methodOf(answer: SecondStepAnswer): SecondFactorMethod {
  if (answer.webauthn !== undefined) return 'webauthn';
  return answer.recovery_code !== undefined ? 'recovery_code' : 'totp';
}

function refusalMessage(method: SecondFactorMethod): string {
  if (method === 'webauthn')
    return 'The passkey was not accepted (another passkey, no user verification, or a used challenge)';
  if (method === 'recovery_code') return 'This recovery code is not one of yours, or it was used';
  return 'The code is not right, or was used already: type the current code of your authenticator app, or a recovery code';
}
