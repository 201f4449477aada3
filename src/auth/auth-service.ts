import { setTimeout as sleep } from 'node:timers/promises';
import type { AuditLog, RequestContext } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import { Deadline } from '../deadline.js';
import {
  AccountLockedError,
  CertificateRefusedError,
  InvalidCredentialsError,
  InvalidTokenError,
  PasswordExpiredError,
  StoreUnavailableError,
  TokenExpiredError,
} from '../errors.js';
import type { TokenClaims } from '../tokens/claims.js';
import type { ClientThrottle } from '../guard/client-throttle.js';
import type { Lockout } from '../guard/lockout.js';
import type { PolicyService } from '../policy/policy-service.js';
import type { RevocationList } from '../tokens/revocation-list.js';
import type { TokenIssuer } from '../tokens/token-issuer.js';
import type { TokenVerifier } from '../tokens/token-verifier.js';
import type { PasswordHasher } from '../users/password-hasher.js';
import { failureBudgetMs, matchPassword } from '../users/match-password.js';
import { isLocked, isPasswordExpired, unlocksInSeconds, type User } from '../users/user.js';
import { usernameKey } from '../users/username.js';
import type { Principal } from './principal.js';
import { highest } from '../access/management.js';
import type { CredentialStore, UserStore } from '../users/user-store.js';
import type { Credentials } from './credentials.js';
import type { VerifiedCredentials } from './verified-credentials.js';
import type { LdapConfig } from '../ldap/ldap-config.js';
import type { LdapRealm } from '../ldap/ldap-realm.js';
import { type PresentedCertificate, subjectAuthorized, subjectLine, verifyCertificate } from '../certs/client-certificate.js';
import type { TrustedCa } from '../certs/trusted-ca.js';

export interface AuthDeps {
  users: UserStore;
  credentials: CredentialStore;
  hasher: PasswordHasher;
  issuer: TokenIssuer;
  verifier: TokenVerifier;
  revocations: RevocationList;
  policy: PolicyService;
  lockout: Lockout;
  throttle: ClientThrottle;
  /** Passwords verified a short while ago, so that repeated Basic calls skip the hash. */
  verified: VerifiedCredentials;
  audit: AuditLog;
  clock: Clock;
  /** The one deadline of a login: every wait inside it gets the time that is left. */
  loginTimeoutMs: number;
  /** Logins through the LDAP directory, for names no local user has. */
  ldap?: LdapRealm;
  /** The CAs that client certificates must chain to (mtls_trusted_ca). */
  trustedCa?: TrustedCa;
}


export interface PasswordCheck {
  user: User;
}

export class AuthService {
  constructor(private readonly deps: AuthDeps) {}

  /**
   * The login path, top to bottom, under one deadline: throttle the client, look the user
   * up, refuse a locked user at once, lease one of the failures still allowed, *then* wait
   * for a hashing thread (the hasher's admission) and verify (a dummy hash for an unknown
   * user: same answer, same work), count the outcome, then policy. Nothing waits while
   * holding what another login needs. `allowExpired` serves the change of an expired password.
   */
  async checkPassword(
    { username, password }: Credentials,
    ctx: RequestContext,
    options: { allowExpired?: boolean; deadline?: Deadline } = {},
  ): Promise<PasswordCheck> {
    const { throttle, users, credentials, policy, lockout, hasher, clock, verified, revocations } = this.deps;
    const deadline = options.deadline ?? Deadline.after(this.deps.loginTimeoutMs);
    const login = usernameKey(username);
    const rules = await inTime(deadline, policy.get());
    const now = new Date(clock());
    // The same password of this login verified a short while ago, and nothing about the user
    // changed since (its token epoch is current: the revocation list knows within a poll, the
    // store at once): no hash, no throttling (only what costs a verification counts), no
    // lockout lease. A user read within the last second is not read again.
    const recalled = verified.recall(login, password);
    let user: User | undefined;
    let read = false;
    if (recalled) {
      const epochCurrent = recalled.fresh && !(await revocations.isRevoked(recalled.user.uid, recalled.user.tokenEpoch));
      if (!epochCurrent) [user, read] = [await inTime(deadline, users.findByUsername(username)), true];
      const current = epochCurrent ? recalled.user : user;
      if (current && current.uid === recalled.user.uid && current.tokenEpoch === recalled.user.tokenEpoch && !isLocked(current, now)) {
        if (read) verified.confirm(login, current);
        if (!options.allowExpired && isPasswordExpired(current, rules, now)) throw new PasswordExpiredError();
        this.onVerified(true);
        return { user: current };
      }
    }
    if (!read) user = await inTime(deadline, users.findByUsername(username));
    // A certificate user has no password: checked like a name known nowhere (the same work, the same answer).
    if (user?.authMethod === 'certificate') user = undefined;
    // No local user of this name: the directory's, when LDAP logins are on (a local user wins).
    if (!user && this.deps.ldap) {
      const directory = await inTime(deadline, this.deps.ldap.active());
      if (directory) return this.checkDirectory(directory, { username, password }, ctx, deadline);
    }
    await throttle.check(ctx.ip);
    const started = performance.now();
    const found = user && { user, passwords: await inTime(deadline, credentials.passwordsOf(user.uid)) };
    let eachMs = 0;
    const match = await lockout.guarded({ username, user: found?.user, policy: rules, ctx, deadline }, async () => {
      const checked = await matchPassword(hasher, found?.passwords, password, deadline);
      eachMs = checked.eachMs;
      return checked.stored;
    });
    if (!found || !match) {
      // A wrong password takes as long for every user, whatever number of passwords they
      // hold, and for a name that does not exist; waited out after the lease is given back.
      const left = started + failureBudgetMs(eachMs) - performance.now();
      await sleep(Math.max(0, Math.min(left, deadline.remaining())));
      throw new InvalidCredentialsError();
    }
    verified.remember(login, found.user, password);
    this.onVerified(false);
    if (!options.allowExpired && isPasswordExpired(found.user, rules, now)) throw new PasswordExpiredError();
    if (hasher.needsRehash(match.hash)) await this.rehash(match.id, password);
    return { user: found.user };
  }

  /**
   * A login through the directory, with a local login's guards: the verified-credentials
   * cache (for no longer than the directory's cache_ttl), throttling, the lockout counted
   * under the same name, and the one deadline. A directory that does not answer is 503
   * `directory_unavailable`, never a wrong password, and counts as no failure.
   */
  private async checkDirectory(config: LdapConfig, { username, password }: Credentials, ctx: RequestContext, deadline: Deadline): Promise<PasswordCheck> {
    const { throttle, users, policy, lockout, clock, verified, revocations, ldap } = this.deps;
    const login = `ldap:${usernameKey(username)}`;
    const recalled = verified.recall(login, password);
    if (recalled && !(await revocations.isRevoked(recalled.user.uid, recalled.user.tokenEpoch))) {
      const current = recalled.fresh ? recalled.user : await inTime(deadline, users.getByUid(recalled.user.uid));
      if (current && current.tokenEpoch === recalled.user.tokenEpoch && !isLocked(current, new Date(clock()))) {
        if (!recalled.fresh) verified.confirm(login, current);
        this.onVerified(true);
        return { user: current };
      }
    }
    await throttle.check(ctx.ip);
    const started = performance.now();
    const known = await inTime(deadline, users.findDirectoryUser(username));
    const rules = await inTime(deadline, policy.get());
    const result = await lockout.guarded({ username, user: known, policy: rules, ctx, deadline }, () => ldap!.verify(config, username, password, deadline));
    if (result === undefined || result === 'no_mapped_group') {
      // As long as a local refusal takes: a local user's wrong password, a name known nowhere and
      // the directory's no are not told apart by their time (a slower directory shows its own).
      const left = started + failureBudgetMs(this.deps.hasher.typicalMs) - performance.now();
      await sleep(Math.max(0, Math.min(left, deadline.remaining())));
      // A right password of a user in no mapped group is not a guess (not counted), but no login.
      throw new InvalidCredentialsError(result === 'no_mapped_group' ? 'ldap: no mapped group' : undefined);
    }
    verified.remember(login, result, password, config.cache_ttl * 1000);
    this.onVerified(false);
    return { user: result };
  }

  /**
   * The certificate user a client certificate proves, when the cluster takes certificates
   * (mtls_certificate_authentication; undefined when it does not): a chain to a trusted CA,
   * within its validity, a subject the cluster lets in, and a user with exactly that subject
   * line who is not locked. Each refusal has its own code.
   */
  async certificateUser(presented: PresentedCertificate, ctx: RequestContext, login = false): Promise<User | undefined> {
    const { policy, trustedCa, users, clock, throttle, audit } = this.deps;
    const rules = await policy.get();
    if (!rules.mtls_certificate_authentication || !trustedCa) return undefined;
    const subject = subjectLine(presented.leaf);
    try {
      if (login) await throttle.check(ctx.ip);
      const now = new Date(clock());
      verifyCertificate(presented, await trustedCa.certificates(), now);
      if (!subjectAuthorized(presented.leaf, rules.mtls_client_cert_subject_validation_type, rules.mtls_authorized_subjects)) {
        throw new CertificateRefusedError('certificate_subject_unknown', 'The certificate\'s subject is not one the cluster lets in (mtls_authorized_subjects)');
      }
      const user = await users.findByCertificateSubject(subject);
      if (!user) throw new CertificateRefusedError('certificate_subject_unknown', `No user has certificate_subject_line "${subject}"`);
      if (user.lockedUntil && isLocked(user, now)) throw new AccountLockedError(unlocksInSeconds(user.lockedUntil, now));
      return user;
    } catch (err) {
      if (login) audit.record(ctx, { event: 'authorize', outcome: 'failure', realm: 'certificate', subject, reason: codeOf(err) });
      throw err;
    }
  }

  /** POST /v1/users/authorize with a client certificate and no other credentials. */
  async authorizeCertificate(presented: PresentedCertificate, ttlSeconds: number, ctx: RequestContext): Promise<string | undefined> {
    const user = await this.certificateUser(presented, ctx, true);
    if (!user) return undefined;
    await this.deps.users.recordLogin(user.uid, new Date(this.deps.clock()));
    this.deps.audit.record(ctx, { event: 'authorize', outcome: 'success', username: user.username, uid: user.uid, realm: 'certificate', subject: user.certificateSubjectLine! });
    return this.deps.issuer.issue(user, ttlSeconds);
  }

  /** A request's Basic credentials as its principal (verified like any login). */
  async passwordPrincipal(credentials: Credentials, ctx: RequestContext): Promise<Principal> {
    return passwordPrincipal((await this.checkPassword(credentials, ctx)).user);
  }

  /**
   * passwordPrincipal without waiting: a password verified a short while ago (the
   * verified-credentials cache) for a user read within the second, whose tokens this process
   * knows are current, neither locked nor expired. Undefined when any of that is not known:
   * passwordPrincipal then decides, and says why.
   */
  knownPassword({ username, password }: Credentials): Principal | undefined {
    const { policy, verified, revocations, clock } = this.deps;
    const rules = policy.fresh();
    if (!rules) return undefined;
    const recalled = verified.recall(usernameKey(username), password);
    if (!recalled?.fresh) return undefined;
    const { user } = recalled;
    const now = new Date(clock());
    if (revocations.knownRevoked(user.uid, user.tokenEpoch) !== false || isLocked(user, now) || isPasswordExpired(user, rules, now)) return undefined;
    this.onVerified(true);
    return passwordPrincipal(user);
  }

  /** The same password hashed with the current parameters; if that fails now, the next login tries again. */
  private async rehash(passwordId: number, password: string): Promise<void> {
    try {
      await this.deps.credentials.replaceHash(passwordId, await this.deps.hasher.hash(password));
    } catch {
      // a right password is not refused for want of an optimization
    }
  }

  /** POST /v1/users/authorize: credentials in, signed token out. */
  async authorize(credentials: Credentials, ttlSeconds: number, ctx: RequestContext): Promise<string> {
    const { audit, users, issuer, clock } = this.deps;
    const deadline = Deadline.after(this.deps.loginTimeoutMs);
    let user: User;
    try {
      ({ user } = await this.checkPassword(credentials, ctx, { deadline }));
    } catch (err) {
      audit.record(ctx, { event: 'authorize', outcome: 'failure', username: credentials.username, reason: codeOf(err) });
      throw err;
    }
    await inTime(deadline, users.recordLogin(user.uid, new Date(clock())));
    audit.record(ctx, { event: 'authorize', outcome: 'success', username: user.username, uid: user.uid, realm: user.realm });
    return issuer.issue(user, ttlSeconds);
  }

  /** POST /v1/users/refresh_jwt: a valid token of a user who may still log in, renewed. */
  async refresh(principal: Principal, ttlSeconds: number, ctx: RequestContext): Promise<string> {
    let user = await this.deps.users.getByUid(principal.uid);
    if (!user) throw new InvalidTokenError('The user of this token no longer exists');
    const now = new Date(this.deps.clock());
    if (user.lockedUntil && isLocked(user, now)) throw new AccountLockedError(unlocksInSeconds(user.lockedUntil, now));
    if (isPasswordExpired(user, await this.deps.policy.get(), new Date(this.deps.clock()))) {
      throw new PasswordExpiredError();
    }
    if (user.realm === 'ldap') {
      // Its groups are read again: a user the directory dropped, or moved out of every mapped group, is not renewed.
      user = await this.deps.ldap?.revalidate(user, Deadline.after(this.deps.loginTimeoutMs));
      if (!user) throw new InvalidTokenError('The directory no longer lets this user log in');
    }
    this.deps.audit.record(ctx, { event: 'refresh', outcome: 'success', username: user.username, uid: user.uid, realm: user.realm });
    return this.deps.issuer.issue(user, ttlSeconds);
  }

  /** Told of every right password: from the verified-credentials cache, or verified in full. */
  onVerified: (cached: boolean) => void = () => {};

  /** Told the result of every token check. */
  onTokenChecked: (result: 'valid' | 'invalid' | 'expired' | 'revoked', cached: boolean) => void = () => {};

  /** A verified, unrevoked token's identity. */
  async checkToken(token: string): Promise<Principal> {
    let checked: { claims: TokenClaims; cached: boolean };
    try {
      checked = await this.deps.verifier.check(token);
    } catch (err) {
      if (err instanceof InvalidTokenError) this.onTokenChecked(err instanceof TokenExpiredError ? 'expired' : 'invalid', false);
      throw err;
    }
    const { claims, cached } = checked;
    if (await this.deps.revocations.isRevoked(claims.uid, claims.ver, claims.jti)) {
      this.onTokenChecked('revoked', cached);
      throw new InvalidTokenError('The token has been revoked');
    }
    this.onTokenChecked('valid', cached);
    return tokenPrincipal(claims);
  }

  /**
   * checkToken without waiting: the principal of a token verified before whose user's epoch
   * is known here and unchanged. Undefined when that is not known (or the token is not good):
   * checkToken then decides, and says why.
   */
  knownToken(token: string): Principal | undefined {
    const claims = this.deps.verifier.known(token);
    if (!claims || this.deps.revocations.knownRevoked(claims.uid, claims.ver, claims.jti) !== false) return undefined;
    this.onTokenChecked('valid', true);
    return tokenPrincipal(claims);
  }

  /** POST /v1/users/logout: ends the presented token everywhere. */
  async logout(principal: Principal, ctx: RequestContext): Promise<void> {
    if (principal.token) {
      await this.deps.revocations.revokeToken(principal.token.jti, new Date(principal.token.exp * 1000));
    }
    this.deps.audit.record(ctx, { event: 'logout', outcome: 'success', username: principal.username, uid: principal.uid });
  }
}

function passwordPrincipal(user: User): Principal {
  return { uid: user.uid, username: user.username, role: highest(user.rights), rights: user.rights, via: 'password' };
}

function tokenPrincipal(claims: TokenClaims): Principal {
  return { uid: claims.uid, username: claims.username, role: highest(claims.roles), rights: claims.roles, via: 'token', token: claims };
}

/** A store call of a login, answered within the login's deadline or not at all. */
function inTime<T>(deadline: Deadline, call: Promise<T>): Promise<T> {
  return deadline.race(call, () => new StoreUnavailableError('no answer within the login deadline'));
}

function codeOf(err: unknown): string {
  if (err instanceof InvalidCredentialsError && err.auditReason) return err.auditReason;
  return (err as { code?: string }).code ?? 'error';
}
