import { rightsFrom } from '../../access/management.js';
import type { RealmName } from '../../access/realm-name.js';
import { mergedScopes } from '../../access/resource-scopes.js';
import { addressAllowed } from '../../api-keys/allowed-cidrs.js';
import type { ApiKey } from '../../api-keys/api-key.js';
import type { ApiKeyCache } from '../../api-keys/api-key-cache.js';
import { keyHash, sameHash } from '../../api-keys/key-format.js';
import type { LastUsed } from '../../api-keys/last-used.js';
import type { Clock } from '../../clock.js';
import { AccountLockedError, ApiKeyRefusedError, SsoRequiredError } from '../../errors.js';
import type { EventHub } from '../../events.js';
import type { ClientThrottle } from '../../guard/client-throttle.js';
import type { Role } from '../../roles/role.js';
import type { RoleCatalog } from '../../roles/role-catalog.js';
import type { SsoConfig } from '../../sso/sso-config.js';
import type { SsoSettings } from '../../sso/sso-settings.js';
import { type User, unlocksInSeconds } from '../../users/user.js';
import type { UserReadCache } from '../../users/user-read-cache.js';
import { usernameKey } from '../../users/username.js';
import { inTime } from '../guards/in-time.js';
import {
  type ApiKeyProof,
  type Attempt,
  NOT_MINE,
  type NotMine,
  type Proof,
  type Realm,
  type Success,
  type Verdict,
} from './realm.js';

/** How a key's check ended (tessera_api_key_checks_total). */
export type ApiKeyCheck = 'valid' | 'invalid' | 'expired' | 'address_refused' | 'owner_refused';

declare module '../../events.js' {
  interface TesseraEvents {
    apiKeyChecked: [result: ApiKeyCheck];
  }
}

type Refusal = Extract<Verdict, { outcome: 'refused' }>;

/**
 * API keys (`tsr_…`): a key is its owner, with the key's rights — the roles it names that the
 * owner still holds (every role of the owner when it names none) — while it has not expired,
 * from the addresses it names, while its owner signs in here (a password kept here, or a
 * service account) and is not locked until an admin unlocks it (a deleted owner's keys are gone). A check is one SHA-256 and a lookup in memory (keys, users and roles read at most
 * once a second). A wrong key is no guess at a password: it never counts toward a lockout, but
 * every refusal counts toward the client's throttle.
 */
export class ApiKeyRealm implements Realm {
  readonly name = 'api_key';
  /** Each owner read's success through its last key (success). */
  private readonly successes = new WeakMap<User, { key: ApiKey; roles: ReadonlyMap<number, Role>; verdict: Success }>();

  constructor(
    private readonly deps: {
      keys: Pick<ApiKeyCache, 'fresh' | 'get'>;
      users: Pick<UserReadCache, 'fresh' | 'get'>;
      roles: Pick<RoleCatalog, 'fresh' | 'get'>;
      /** Whether the cluster enforces SSO: a user who must sign in through it has no key (but an admin, and service accounts). */
      sso: Pick<SsoSettings, 'fresh' | 'get'>;
      throttle: Pick<ClientThrottle, 'check' | 'assertOpen'>;
      lastUsed: Pick<LastUsed, 'touch'>;
      events: EventHub;
      clock: Clock;
    },
  ) {}

  async supports(proof: Proof): Promise<boolean> {
    return proof.kind === 'api_key';
  }

  /** A key whose key, owner and roles this process read within the second, when it stands; else undefined (authenticate decides, and says why). */
  known(proof: Proof): Success | undefined {
    if (proof.kind !== 'api_key') return undefined;
    const hash = keyHash(proof.key);
    const found = this.deps.keys.fresh(hash);
    const owner = found && this.deps.users.fresh(found.key.uid);
    const roles = this.deps.roles.fresh();
    const sso = this.deps.sso.fresh();
    if (!found || !owner || !roles || !sso) return undefined;
    const decided = this.decide(proof, hash, found.key, owner.user, roles, ssoEnforced(sso));
    return decided.outcome === 'success' ? this.used(decided, found.key) : undefined;
  }

  async authenticate(proof: Proof, attempt: Attempt): Promise<Verdict> {
    if (proof.kind !== 'api_key') return NOT_MINE;
    attempt.trail.realm = 'api_key';
    const ip = proof.ip ?? attempt.ctx.ip;
    const hash = keyHash(proof.key);
    // An address past its throttle is not let try keys the store must be asked for.
    if (!this.deps.keys.fresh(hash)) await this.deps.throttle.assertOpen(ip);
    const key = await inTime(attempt.deadline, this.deps.keys.get(hash));
    const [owner, roles, sso] = key
      ? await inTime(
          attempt.deadline,
          Promise.all([this.deps.users.get(key.uid), this.deps.roles.get(), this.deps.sso.get()]),
        )
      : [undefined, new Map<number, Role>(), undefined];
    const decided = key
      ? this.decide(proof, hash, key, owner, roles, sso !== undefined && ssoEnforced(sso))
      : { outcome: 'not_taken' as const, refusal: invalid('no such key'), result: 'invalid' as const };
    if (decided.outcome !== 'success') {
      this.deps.events.emit('apiKeyChecked', decided.result);
      // Counted by the client's throttle (429 past it), never by the owner's lockout.
      await this.deps.throttle.check(ip);
      return decided.refusal;
    }
    return this.used(decided, key!);
  }

  /** Its tokens come from its logins with keys, which refresh does not renew: a service account is as it is. */
  async refresh(user: User): Promise<User | undefined | NotMine> {
    return user.realm === 'api_key' ? user : NOT_MINE;
  }

  async lookup(): Promise<undefined> {
    return undefined;
  }

  /**
   * A key's yes: its owner narrowed to the key's roles, without a timed lock (which guards the
   * password) — made once for each owner read, key read and roles read (each kept a second), not
   * at every call (a key's check is the hot path of automation).
   */
  private success(owner: User, key: ApiKey, roles: ReadonlyMap<number, Role>): Success {
    let made = this.successes.get(owner);
    if (made?.key !== key || made.roles !== roles) {
      const user = narrowed(owner, key, roles);
      const verdict: Success = {
        outcome: 'success',
        realm: 'api_key',
        user: user.lockedUntil === null ? user : { ...user, lockedUntil: null },
        apiKeyId: key.id,
        until: key.expiresAt,
        ...(key.allowedCidrs !== null && { cidrs: key.allowedCidrs }),
        rememberMs: 0,
      };
      made = { key, roles, verdict };
      this.successes.set(owner, made);
    }
    return made.verdict;
  }

  private used(verdict: Success, key: ApiKey): Success {
    this.deps.events.emit('apiKeyChecked', 'valid');
    this.deps.lastUsed.touch(key.id);
    return verdict;
  }

  /** The one rule of a key, given its facts (loaded from memory or awaited). */
  private decide(
    proof: ApiKeyProof,
    hash: string,
    key: ApiKey,
    owner: User | undefined,
    roles: ReadonlyMap<number, Role>,
    ssoEnforced: boolean,
  ): Success | { outcome: 'not_taken'; refusal: Refusal; result: ApiKeyCheck } {
    const refuse = (result: ApiKeyCheck, refusal: Refusal) => ({ outcome: 'not_taken' as const, refusal, result });
    if (!sameHash(key.hash, hash) || !owner) return refuse('invalid', invalid('its owner is gone'));
    if (proof.username !== undefined && !owner.logins.includes(usernameKey(proof.username)))
      return refuse('invalid', invalid(`key ${key.id} is not of the user named`));
    // Keys are for users whose way in is here (a password kept here, or a service account): the
    // directory, an identity provider or a certificate may stop letting one in, which a key would outlive.
    if (!KEY_REALMS.includes(owner.realm))
      return refuse('owner_refused', {
        outcome: 'refused',
        guess: false,
        reason: `key ${key.id}: its owner signs in through ${owner.realm}`,
        error: new ApiKeyRefusedError(
          'invalid_api_key',
          `This API key's owner signs in through ${owner.realm}: its keys are not taken (make a service account for automation)`,
        ),
      });
    // A user the cluster sends through its identity provider has no key besides it: turning the
    // user off there must turn it off here (the local realm refuses its password alike).
    if (ssoEnforced && owner.realm === 'local' && !owner.rights.includes('admin'))
      return refuse('owner_refused', {
        outcome: 'refused',
        guess: false,
        reason: `key ${key.id}: SSO is enforced for its owner`,
        error: new SsoRequiredError(),
      });
    const now = this.deps.clock();
    if (key.expiresAt.getTime() <= now)
      return refuse('expired', {
        outcome: 'refused',
        guess: false,
        reason: `key ${key.id} expired`,
        error: new ApiKeyRefusedError(
          'api_key_expired',
          `This API key (${key.id}) expired at ${key.expiresAt.toISOString()}: make a new one`,
        ),
      });
    const ip = proof.ip;
    if (key.allowedCidrs !== null && (ip === undefined || !addressAllowed(key.allowedCidrs, ip)))
      return refuse('address_refused', {
        outcome: 'refused',
        guess: false,
        reason: `key ${key.id} from ${ip ?? 'no address'}`,
        error: new ApiKeyRefusedError(
          'api_key_address_refused',
          `This API key (${key.id}) is not taken from this address (${ip ?? 'unknown'}): see its allowed_cidrs`,
        ),
      });
    // A lockout guards the password against guessing: anyone can cause one, so a timed one does not
    // stop the owner's keys (automation would stop with it). A lock until an admin unlocks does.
    const adminLock = owner.lockedUntil !== null && unlocksInSeconds(owner.lockedUntil, new Date(now)) === undefined;
    if (adminLock)
      return refuse('owner_refused', {
        outcome: 'refused',
        guess: false,
        reason: `key ${key.id}: its owner is locked until an admin unlocks it`,
        error: new AccountLockedError(),
      });
    return this.success(owner, key, roles);
  }
}

/** The realms whose users may have keys: a password kept here, or a service account. */
const KEY_REALMS: readonly RealmName[] = ['local', 'api_key'];

function invalid(reason: string): Refusal {
  return {
    outcome: 'refused',
    guess: false,
    reason,
    error: new ApiKeyRefusedError('invalid_api_key', 'Invalid API key'),
  };
}

/** The owner with the key's rights: the roles the key names that the owner holds now (all of them, when it names none). */
export function narrowed(owner: User, key: Pick<ApiKey, 'roleUids'>, roles: ReadonlyMap<number, Role>): User {
  if (key.roleUids === null) return owner;
  const held = owner.roleUids.filter((uid) => key.roleUids!.includes(uid));
  const grants = held.flatMap((uid) => {
    const role = roles.get(uid);
    return role ? [role] : [];
  });
  return {
    ...owner,
    roleUids: held,
    rights: rightsFrom(grants.map((g) => g.management)),
    resources: mergedScopes(grants),
  };
}

const ssoEnforced = (sso: Pick<SsoConfig, 'control_plane' | 'enforce_control_plane'>) =>
  sso.control_plane && sso.enforce_control_plane;
