import { randomBytes } from 'node:crypto';
import type { Actor } from '../access/actor.js';
import { type AuditLog, actorOf, type RequestContext } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import {
  InvalidMfaResponseError,
  InvalidRequestError,
  MfaFactorNotFoundError,
  MfaFreshRequiredError,
  TooManyMfaFactorsError,
  UnauthorizedActionError,
  UserNotFoundError,
} from '../errors.js';
import type { EventHub } from '../events.js';
import type { KeySealer } from '../tokens/key-sealer.js';
import type { User } from '../users/user.js';
import type { UserStore } from '../users/user-store.js';
import { type Factor, type FactorView, toFactorView } from './factor.js';
import type { MfaStore } from './mfa-store.js';
import { type NewPasskey, passkeys, type RelyingParty } from './passkeys.js';
import { newRecoveryCodes, recoveryCodeHash } from './recovery-codes.js';
import { matchedStep, newTotpSecret, otpauthUrl } from './totp.js';

/** A user has at most this many second factors (an app or two, a few passkeys, with room to replace one). */
export const MAX_FACTORS = 10;
/** A secret shown for enrolment waits this long for its first code. */
export const PENDING_MS = 15 * 60_000;
/** A change of one's own factors needs a second factor proven this recently (a token's mfa_at). */
export const FRESH_MS = 15 * 60_000;
/** A passkey's registration waits this long for the authenticator's answer. */
const REGISTRATION_MS = 5 * 60_000;

/** The caller as these rules need it: who it is, the API key it acts with, when its token's second factor was proven. */
export type MfaActor = Actor & { apiKeyId?: string | undefined; mfaAt?: number | undefined };

/** What GET /v1/users/{uid}/mfa answers. */
export interface FactorsView {
  factors: FactorView[];
  recovery_codes_remaining: number;
  mfa_required: boolean;
}

const factorId = () => `mf_${randomBytes(12).toString('base64url')}`;
/** What a TOTP secret is sealed under: its factor, so that a sealed secret cannot be moved to another row. */
export const sealedAs = (id: string) => `mfa.${id}`;

/**
 * Users' second factors: an authenticator app (its secret shown once, proven by a first code)
 * and passkeys (WebAuthn), enrolled by the user for itself; listed by who may see the user;
 * removed by the user with a second factor proven in the last 15 minutes, or by who may manage
 * it (a reset: a lost phone). The first factor brings ten recovery codes, shown once.
 */
export class MfaService {
  constructor(
    private readonly deps: {
      store: MfaStore;
      sealer: Pick<KeySealer, 'seal' | 'open'>;
      users: Pick<UserStore, 'getByUid'>;
      accounts: {
        view(actor: Actor, uid: number, read: (uid: number) => Promise<User | undefined>): Promise<User>;
        assertMayManage(actor: Actor | null, target: User): void;
      };
      relyingParty: RelyingParty;
      issuer: string;
      /** Told of a user whose factors changed: its reads are dropped here at once (other nodes: within their second). */
      events: EventHub;
      audit: AuditLog;
      clock: Clock;
    },
  ) {}

  /** Drops challenges past their time and secrets that waited too long for a first code (hourly). */
  prune(): Promise<void> {
    const now = this.deps.clock();
    return this.deps.store.sweep(new Date(now), new Date(now - PENDING_MS));
  }

  async list(actor: MfaActor, uid: number): Promise<FactorsView> {
    const user = await this.maySee(actor, uid);
    const factors = (await this.deps.store.listOf(uid)).filter((f) => f.confirmed);
    return {
      factors: factors.map(toFactorView),
      recovery_codes_remaining: await this.deps.store.recoveryCodesLeft(uid),
      mfa_required: user.mfaRequired,
    };
  }

  /** A new authenticator app's secret, waiting for its first code (POST …/totp/verify). */
  async startTotp(
    actor: MfaActor,
    uid: number,
    name: string | undefined,
  ): Promise<FactorView & { secret: string; otpauth_url: string }> {
    const user = await this.mayEnrol(actor, uid);
    const secret = newTotpSecret();
    const id = factorId();
    const factor: Factor = {
      ...blank(id, uid, 'totp', checkedName(name ?? 'Authenticator app'), new Date(this.deps.clock())),
      secret: this.deps.sealer.seal({ secret }, sealedAs(id)),
    };
    await this.deps.store.addPending(factor);
    return { ...toFactorView(factor), secret, otpauth_url: otpauthUrl(secret, user.username, this.deps.issuer) };
  }

  /** The waiting secret proven by a code of it: a factor from now on (the code's step taken, never accepted again). */
  async verifyTotp(
    actor: MfaActor,
    uid: number,
    code: string,
    ctx: RequestContext,
  ): Promise<{ factor: FactorView; recovery_codes?: string[] }> {
    const user = await this.mayEnrol(actor, uid);
    const now = this.deps.clock();
    const pending = (await this.deps.store.listOf(uid)).find(
      (f) => f.type === 'totp' && !f.confirmed && now - f.createdAt.getTime() < PENDING_MS,
    );
    if (!pending?.secret)
      throw new InvalidRequestError('No authenticator app is waiting for its first code: POST …/mfa/totp first');
    const step = matchedStep(this.secretOf(pending), code, now);
    if (step === undefined)
      throw new InvalidMfaResponseError(
        'The code is not right: type the code your authenticator app shows now (its clock must be right)',
      );
    if (!(await this.deps.store.confirm(pending.id, uid, step, MAX_FACTORS)))
      throw new TooManyMfaFactorsError(MAX_FACTORS);
    this.deps.events.emit('userChanged', uid);
    return this.enrolled(actor, user, { ...pending, confirmed: true }, ctx);
  }

  /** WebAuthn's registration options for a new passkey of the user; its challenge kept for the answer. */
  async passkeyOptions(actor: MfaActor, uid: number, ctx: RequestContext): Promise<unknown> {
    const user = await this.mayEnrol(actor, uid);
    const rp = this.passkeyParty();
    const existing = (await this.deps.store.listOf(uid)).filter((f) => f.confirmed && f.type === 'webauthn');
    const options = await passkeys.registrationOptions(rp, user, existing);
    await this.deps.store.putChallenge({
      id: `register:${uid}`,
      uid,
      purpose: 'register',
      client: ctx.ip,
      data: { challenge: options.challenge },
      attempts: 0,
      expiresAt: new Date(this.deps.clock() + REGISTRATION_MS),
    });
    return options;
  }

  /** A passkey registered: the authenticator's answer to the options' challenge (one use), verified. */
  async addPasskey(
    actor: MfaActor,
    uid: number,
    input: { name: string; response: unknown },
    ctx: RequestContext,
  ): Promise<{ factor: FactorView; recovery_codes?: string[] }> {
    const user = await this.mayEnrol(actor, uid);
    const rp = this.passkeyParty();
    const id = `register:${uid}`;
    const challenge = await this.deps.store.challenge(id);
    const now = this.deps.clock();
    // The options' challenge, answered from the client that asked for them.
    if (
      !challenge ||
      challenge.expiresAt.getTime() <= now ||
      challenge.client !== ctx.ip ||
      typeof challenge.data.challenge !== 'string'
    )
      throw new InvalidRequestError('No passkey registration is waiting: POST …/mfa/webauthn/options first');
    if (!(await this.deps.store.takeChallenge(id)))
      throw new InvalidRequestError('This registration was used: POST …/mfa/webauthn/options again');
    const passkey: NewPasskey | undefined = await passkeys.verifyRegistration(
      rp,
      input.response as never,
      challenge.data.challenge,
    );
    if (!passkey)
      throw new InvalidMfaResponseError(
        "The authenticator's answer does not verify (another origin, another challenge, or no user verification): try again",
      );
    const factor: Factor = {
      ...blank(factorId(), uid, 'webauthn', checkedName(input.name), new Date(now)),
      confirmed: true,
      credentialId: passkey.credentialId,
      publicKey: passkey.publicKey,
      counter: passkey.counter,
      transports: passkey.transports,
    };
    try {
      if (!(await this.deps.store.add(factor, MAX_FACTORS))) throw new TooManyMfaFactorsError(MAX_FACTORS);
      this.deps.events.emit('userChanged', uid);
    } catch (err) {
      if (/unique|duplicate/i.test(String((err as Error).message)))
        throw new InvalidMfaResponseError('This passkey is registered already');
      throw err;
    }
    return this.enrolled(actor, user, factor, ctx);
  }

  /** Removes one factor: the user itself with a fresh second factor, or who may manage it (a reset). */
  async remove(actor: MfaActor, uid: number, id: string, ctx: RequestContext): Promise<void> {
    const user = await this.mayChange(actor, uid);
    const factor = await this.deps.store.get(id);
    if (!factor || factor.uid !== uid || !factor.confirmed) throw new MfaFactorNotFoundError();
    if (!(await this.deps.store.delete(id, uid))) throw new MfaFactorNotFoundError();
    // The last factor gone: its recovery codes go with it (they recover a factor, not a password).
    if ((await this.deps.store.listOf(uid)).every((f) => !f.confirmed)) await this.deps.store.deleteAll(uid);
    this.deps.events.emit('userChanged', uid);
    this.audited(ctx, actor, user, actor.uid === uid ? 'mfa_remove' : 'mfa_reset', factorTarget(factor));
  }

  /** Removes every factor and recovery code of the user (a reset, or the user's own with a fresh second factor). */
  async removeAll(actor: MfaActor, uid: number, ctx: RequestContext): Promise<void> {
    const user = await this.mayChange(actor, uid);
    const removed = await this.deps.store.deleteAll(uid);
    this.deps.events.emit('userChanged', uid);
    this.audited(ctx, actor, user, actor.uid === uid ? 'mfa_remove' : 'mfa_reset', `mfa (${removed} factors)`);
  }

  /** Ten new recovery codes, the old ones gone: the user's own, with a fresh second factor. */
  async newRecoveryCodes(actor: MfaActor, uid: number, ctx: RequestContext): Promise<string[]> {
    if (actor.uid !== uid) throw new UnauthorizedActionError("A user's recovery codes are its own to make");
    const user = await this.mayChange(actor, uid);
    if (!user.mfa) throw new InvalidRequestError('Recovery codes come with a second factor: enrol one first');
    const codes = newRecoveryCodes();
    await this.deps.store.replaceRecoveryCodes(uid, codes.map(recoveryCodeHash));
    this.audited(ctx, actor, user, 'mfa_recovery_codes', 'mfa recovery codes');
    return codes;
  }

  private async enrolled(
    actor: MfaActor,
    user: User,
    factor: Factor,
    ctx: RequestContext,
  ): Promise<{ factor: FactorView; recovery_codes?: string[] }> {
    this.audited(ctx, actor, user, 'mfa_enrol', factorTarget(factor));
    // The first factor brings the codes that stand in for it when it is lost.
    if ((await this.deps.store.recoveryCodesLeft(user.uid)) > 0) return { factor: toFactorView(factor) };
    const codes = newRecoveryCodes();
    await this.deps.store.replaceRecoveryCodes(user.uid, codes.map(recoveryCodeHash));
    return { factor: toFactorView(factor), recovery_codes: codes };
  }

  private secretOf(factor: Factor): string {
    return this.deps.sealer.open<{ secret: string }>(factor.secret!, sealedAs(factor.id)).secret;
  }

  private passkeyParty(): RelyingParty & { id: string } {
    const rp = this.deps.relyingParty;
    if (!rp.id)
      throw new InvalidRequestError(
        `Passkeys need a host name in the public URL (${rp.origin} is an address, which WebAuthn takes no passkey for): start Tessera with --public-url https://<name>`,
      );
    return { ...rp, id: rp.id };
  }

  /** The user itself, or who may see it. */
  private async maySee(actor: MfaActor, uid: number): Promise<User> {
    if (actor.uid === uid) {
      const user = await this.deps.users.getByUid(uid);
      if (!user) throw new UserNotFoundError();
      return user;
    }
    return this.deps.accounts.view(actor, uid, (u) => this.deps.users.getByUid(u));
  }

  /**
   * Enrolment is the user's own, with a login (never with an API key), for a user whose password
   * is proven here or by the directory (an identity provider's or a certificate's user has its
   * own factor); a user with a factor adds another only with one proven in the last 15 minutes.
   */
  private async mayEnrol(actor: MfaActor, uid: number): Promise<User> {
    if (actor.uid !== uid) throw new UnauthorizedActionError('A second factor is enrolled by its user, for itself');
    notWithKey(actor);
    const user = await this.maySee(actor, uid);
    if (user.realm !== 'local' && user.realm !== 'ldap')
      throw new InvalidRequestError(
        `This user signs in through ${user.realm === 'api_key' ? 'its API keys' : user.realm}, which is its own proof: a second factor is for users who log in with a password`,
      );
    if (user.mfa) this.assertFresh(actor);
    return user;
  }

  /** The user itself with a fresh second factor, or who may manage it, with a login. */
  private async mayChange(actor: MfaActor, uid: number): Promise<User> {
    notWithKey(actor);
    const user = await this.maySee(actor, uid);
    if (actor.uid === uid) {
      if (user.mfa) this.assertFresh(actor);
    } else this.deps.accounts.assertMayManage(actor, user);
    return user;
  }

  private assertFresh(actor: MfaActor): void {
    const at = actor.mfaAt;
    if (at === undefined || this.deps.clock() - at * 1000 > FRESH_MS) throw new MfaFreshRequiredError();
  }

  private audited(
    ctx: RequestContext,
    actor: MfaActor,
    user: User,
    event: 'mfa_enrol' | 'mfa_remove' | 'mfa_reset' | 'mfa_recovery_codes',
    target: string,
  ): void {
    this.deps.audit.record(ctx, {
      event,
      outcome: 'success',
      ...actorOf(actor),
      uid: user.uid,
      username: user.username,
      target,
    });
  }
}

function notWithKey(actor: MfaActor): void {
  if (actor.apiKeyId) throw new UnauthorizedActionError('Second factors are managed with a login, not with an API key');
}

const factorTarget = (factor: Factor) => `mfa_factor ${factor.id} (${factor.type})`;

function blank(id: string, uid: number, type: Factor['type'], name: string, at: Date): Factor {
  return {
    id,
    uid,
    type,
    name,
    confirmed: false,
    secret: null,
    lastStep: null,
    credentialId: null,
    publicKey: null,
    counter: 0,
    transports: null,
    createdAt: at,
    lastUsedAt: null,
  };
}

function checkedName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > 100) throw new InvalidRequestError('name: 1 to 100 characters');
  // Shown in the console's lists: no control or direction-changing characters.
  if (/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(trimmed))
    throw new InvalidRequestError('name must not hold control or text-direction characters');
  return trimmed;
}
