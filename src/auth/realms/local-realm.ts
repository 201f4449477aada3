import type { Clock } from '../../clock.js';
import { InvalidCredentialsError, SsoRequiredError, StoreUnavailableError } from '../../errors.js';
import type { Policy } from '../../policy/policy.js';
import type { PolicyService } from '../../policy/policy-service.js';
import type { SsoSettings } from '../../sso/sso-settings.js';
import { matchPassword } from '../../users/match-password.js';
import type { PasswordHasher } from '../../users/password-hasher.js';
import { checkNewPassword } from '../../users/password-rules.js';
import { isPreHashedRecord } from '../../users/pre-hashed-password.js';
import type { User } from '../../users/user.js';
import type { CredentialStore, UserStore } from '../../users/user-store.js';
import { type Attempt, NOT_MINE, type NotMine, type PasswordRealm, type Proof, type Verdict } from './realm.js';

/**
 * Passwords kept here, as argon2id hashes: a user may hold two during a rotation. While the
 * cluster enforces SSO (enforce_control_plane), a right password of a user who is not an
 * admin is refused with sso_required: such users sign in through the identity provider.
 */
export class LocalRealm implements PasswordRealm {
  readonly name = 'local';

  constructor(
    private readonly credentials: Pick<CredentialStore, 'passwordsOf' | 'replaceHash'> &
      Pick<UserStore, 'expirePassword'>,
    private readonly hasher: PasswordHasher,
    private readonly sso: Pick<SsoSettings, 'get'>,
    private readonly policy: Pick<PolicyService, 'get'>,
    private readonly clock: Clock,
  ) {}

  async supports(proof: Proof): Promise<boolean> {
    return proof.kind === 'password';
  }

  owns(user: User): boolean {
    return user.realm === 'local';
  }

  async authenticate(proof: Proof, { account, deadline }: Attempt): Promise<Verdict> {
    if (proof.kind !== 'password' || !account || !this.owns(account)) return NOT_MINE;
    const passwords = await deadline.race(
      this.credentials.passwordsOf(account.uid),
      () => new StoreUnavailableError('no answer within the login deadline'),
    );
    const { stored, eachMs } = await matchPassword(this.hasher, passwords, proof.password, deadline);
    if (!stored) return { outcome: 'refused', error: new InvalidCredentialsError(), guess: true, eachMs };
    const moved = isPreHashedRecord(stored.hash);
    if (this.hasher.needsRehash(stored.hash)) await this.rehash(stored.id, proof.password);
    // A password moved in pre-hashed was never checked against the rules here: now that its text is, one that fails them must be changed.
    if (moved && !(await passesRules(proof.password, account, await this.policy.get()))) {
      const now = new Date(this.clock());
      await this.credentials.expirePassword(account.uid, now);
      return { outcome: 'success', realm: 'local', user: { ...account, passwordExpiresAt: now } };
    }
    const sso = await this.sso.get();
    if (sso.control_plane && sso.enforce_control_plane && !account.rights.includes('admin')) {
      return { outcome: 'refused', error: new SsoRequiredError(), guess: false, reason: 'sso enforced', eachMs };
    }
    return { outcome: 'success', realm: 'local', user: account };
  }

  async refresh(user: User): Promise<User | NotMine> {
    return this.owns(user) ? user : NOT_MINE;
  }

  /** Local names are the store's own: the chain finds them there. */
  async lookup(): Promise<undefined> {
    return undefined;
  }

  /** The same password hashed with the current parameters; if that fails now, the next login tries again. */
  private async rehash(passwordId: number, password: string): Promise<void> {
    try {
      await this.credentials.replaceHash(passwordId, await this.hasher.hash(password));
    } catch {
      // a right password is not refused for want of an optimization
    }
  }
}

async function passesRules(password: string, user: User, policy: Policy): Promise<boolean> {
  try {
    await checkNewPassword(password, user, policy);
    return true;
  } catch {
    return false;
  }
}
