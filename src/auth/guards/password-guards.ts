import { setTimeout as sleep } from 'node:timers/promises';
import type { RealmName } from '../../access/realm-name.js';
import type { Deadline } from '../../deadline.js';
import { InvalidCredentialsError } from '../../errors.js';
import type { ClientThrottle } from '../../guard/client-throttle.js';
import { type Lockout, lockoutKey } from '../../guard/lockout.js';
import type { PolicyService } from '../../policy/policy-service.js';
import { failureBudgetMs } from '../../users/match-password.js';
import type { PasswordHasher } from '../../users/password-hasher.js';
import type { User } from '../../users/user.js';
import type { UserStore } from '../../users/user-store.js';
import { usernameKey } from '../../users/username.js';
import {
  type Attempt,
  isNotMine,
  NOT_MINE,
  type NotMine,
  type PasswordProof,
  type PasswordRealm,
  type Proof,
  type Realm,
  type RememberedAs,
  type Verdict,
} from '../realms/realm.js';
import { inTime } from './in-time.js';

export interface PasswordGuardDeps {
  users: Pick<UserStore, 'findByUsername'>;
  throttle: Pick<ClientThrottle, 'check'>;
  lockout: Pick<Lockout, 'guarded'>;
  policy: Pick<PolicyService, 'get'>;
  /** The work of a wrong password for a name that no realm knows. */
  hasher: Pick<PasswordHasher, 'verifyDummy' | 'typicalMs'>;
}

/** A password is remembered under its login's key (any spelling of the name is the same key). */
export function passwordRememberedAs(proof: Proof): RememberedAs | undefined {
  return proof.kind === 'password'
    ? { key: usernameKey(proof.username), secret: proof.password, login: true }
    : undefined;
}

/**
 * The guards of a password, around the realms that check passwords (here, or a directory's),
 * as one realm to the chain: every check in full counts toward the client's throttle; the
 * account the login names — every alias of it, in any spelling — is found once, and only its
 * own realm answers for it; the lockout refuses a locked account at once and leases one of
 * the failures still allowed; a name no realm takes costs the work of a wrong password all
 * the same; and every refusal is answered no sooner than a wrong password (the failure budget).
 */
export class PasswordGuards implements Realm {
  constructor(
    private readonly realms: readonly PasswordRealm[],
    private readonly deps: PasswordGuardDeps,
  ) {}

  async supports(proof: Proof): Promise<boolean> {
    return proof.kind === 'password';
  }

  async authenticate(proof: Proof, attempt: Attempt): Promise<Verdict> {
    if (proof.kind !== 'password') return NOT_MINE;
    const { users, throttle, lockout, policy } = this.deps;
    const { ctx, deadline } = attempt;
    await throttle.check(ctx.ip);
    // The realms that take passwords now, asked once for the whole check.
    const open = await this.open(proof);
    const named =
      (await inTime(deadline, users.findByUsername(proof.username))) ??
      (await this.accountElsewhere(open, proof, deadline));
    // An account no password realm proves (a certificate's, an SSO user's) has no password: its name is
    // answered as a name known nowhere — no realm asked, counted apart from the account (a guess at it
    // must not lock it out of its own way in).
    const account = named && this.realms.some((r) => r.owns(named)) ? named : undefined;
    // A login never reaches another realm's account: the account's realm alone answers for it.
    const realms = account ? open.filter((r) => r.owns(account)) : named ? [] : open;
    const rules = await inTime(deadline, policy.get());
    const started = performance.now();
    const verdict = await lockout.guarded(
      { key: lockoutKey(account, usernameKey(proof.username)), user: account, policy: rules, ctx, deadline },
      () => this.ask(realms, proof, { ...attempt, account }),
      (v) => v.outcome === 'refused' && v.guess,
    );
    // Every refusal of a password takes as long as a wrong one — for every user, whatever number of
    // passwords it holds, for a name known nowhere, for a right directory password that maps to no
    // role — so that its time tells nothing; waited out after the lease is given back.
    if (verdict.outcome === 'refused') await this.waitOut(started, verdict.eachMs, deadline);
    return verdict.outcome === 'success' ? { ...verdict, byPassword: true } : verdict;
  }

  async refresh(user: User, deadline: Deadline): Promise<User | undefined | NotMine> {
    for (const realm of this.realms) {
      const refreshed = await realm.refresh(user, deadline);
      if (!isNotMine(refreshed)) return refreshed;
    }
    return NOT_MINE;
  }

  async lookup(name: string, deadline: Deadline): Promise<RealmName | undefined> {
    for (const realm of this.realms) {
      const found = await realm.lookup(name, deadline);
      if (found) return found;
    }
    return undefined;
  }

  /** The account a realm says the proof names, when its login's name finds none (a directory's other name for an entry). */
  private async accountElsewhere(
    open: readonly PasswordRealm[],
    proof: PasswordProof,
    deadline: Deadline,
  ): Promise<User | undefined> {
    for (const realm of open) {
      const account = await realm.account?.(proof, deadline);
      if (account) return account;
    }
    return undefined;
  }

  /** The realms that take this proof now (a directory's logins may be off). */
  private async open(proof: PasswordProof): Promise<PasswordRealm[]> {
    const supported = await Promise.all(this.realms.map((r) => r.supports(proof)));
    return this.realms.filter((_, i) => supported[i]);
  }

  /** Each realm in turn until one says the proof is its own; none: a refusal that cost what a wrong password costs. */
  private async ask(realms: readonly PasswordRealm[], proof: PasswordProof, attempt: Attempt): Promise<Verdict> {
    for (const realm of realms) {
      const verdict = await realm.authenticate(proof, attempt);
      if (verdict.outcome === 'not_mine') continue;
      attempt.trail.realm = realm.name;
      return verdict;
    }
    const started = performance.now();
    await this.deps.hasher.verifyDummy(proof.password, attempt.deadline);
    return {
      outcome: 'refused',
      error: new InvalidCredentialsError(),
      guess: true,
      reason: 'no such account',
      eachMs: performance.now() - started,
    };
  }

  private async waitOut(started: number, eachMs: number | undefined, deadline: Deadline): Promise<void> {
    const left = started + failureBudgetMs(eachMs ?? this.deps.hasher.typicalMs) - performance.now();
    await sleep(Math.max(0, Math.min(left, deadline.remaining())));
  }
}
