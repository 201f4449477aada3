import type { Actor } from '../access/actor.js';
import type { AuditLog, RequestContext } from '../audit/audit-log.js';
import { actorOf } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import {
  ApiKeyNotFoundError,
  InvalidRequestError,
  MfaRequiredError,
  TooManyApiKeysError,
  UnauthorizedActionError,
} from '../errors.js';
import type { PolicyService } from '../policy/policy-service.js';
import { TTL_MAX_SECONDS } from '../tokens/claims.js';
import type { RevocationList } from '../tokens/revocation-list.js';
import { secondFactorOf, type User } from '../users/user.js';
import type { UserStore } from '../users/user-store.js';
import { checkedCidrs } from './allowed-cidrs.js';
import { type ApiKey, MAX_KEYS_PER_USER } from './api-key.js';
import type { ApiKeyCache } from './api-key-cache.js';
import type { ApiKeyStore } from './api-key-store.js';
import { keyHash, newKey, newKeyId, shownPrefix } from './key-format.js';

const DAY_MS = 86_400_000;
/** How long after a revocation a token of the key's sessions could still be within its exp. */
const TOKENS_OUTLIVE_MS = (TTL_MAX_SECONDS + 300) * 1000;

/** What POST /v1/users/{uid}/api_keys takes. */
export interface NewApiKey {
  name: string;
  expires_at?: string;
  ttl_days?: number;
  role_uids?: number[];
  allowed_cidrs?: string[];
}

/** What PUT /v1/users/{uid}/api_keys/{key_id} takes. */
export interface ApiKeyChange {
  name?: string;
  expires_at?: string;
  allowed_cidrs?: string[] | null;
}

/** A key as the API shows it: never its hash; the key itself only in the answer that made it. */
export interface ApiKeyView {
  key_id: string;
  uid: number;
  name: string;
  prefix: string;
  created: string;
  expires: string;
  /** The roles it acts with (a subset of its owner's); absent: every role of its owner. */
  role_uids?: number[];
  allowed_cidrs?: string[];
  last_used?: string;
}

const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

export function toApiKeyView(key: ApiKey): ApiKeyView {
  return {
    key_id: key.id,
    uid: key.uid,
    name: key.name,
    prefix: key.prefix,
    created: iso(key.createdAt),
    expires: iso(key.expiresAt),
    ...(key.roleUids !== null && { role_uids: key.roleUids }),
    ...(key.allowedCidrs !== null && { allowed_cidrs: key.allowedCidrs }),
    ...(key.lastUsedAt !== null && { last_used: iso(key.lastUsedAt) }),
  };
}

/** The caller as the key rules need it: who it is, and the key it acts with, when it does. */
export type KeyActor = Actor & { apiKeyId?: string };

/**
 * Users' API keys: made (the key shown once), listed, changed, revoked — by the user for itself,
 * or by who may manage the user (never an admin's, but by an admin); always with a login, never
 * with a key. Every key expires, within
 * api_key_max_lifetime_days; a user has at most MAX_KEYS_PER_USER. A revocation ends the key's
 * sessions (the tokens issued for it) on every node, as a session's end does, and the key is
 * refused on every node within its cache's second.
 */
export class ApiKeyService {
  constructor(
    private readonly deps: {
      store: ApiKeyStore;
      cache: Pick<ApiKeyCache, 'forget'>;
      users: Pick<UserStore, 'getByUid'>;
      accounts: {
        view(actor: Actor, uid: number, read: (uid: number) => Promise<User | undefined>): Promise<User>;
        assertMayManage(actor: Actor | null, target: User): void;
      };
      policy: Pick<PolicyService, 'get'>;
      revocations: Pick<RevocationList, 'sessionEnded'>;
      audit: AuditLog;
      clock: Clock;
    },
  ) {}

  /** A new key of the user: its view, with the key itself — the one time it is shown. */
  async create(
    actor: KeyActor | null,
    uid: number,
    input: NewApiKey,
    ctx: RequestContext,
  ): Promise<ApiKeyView & { key: string }> {
    const owner = await this.mayChange(actor, uid);
    // A key is a way to act as its owner, handed to whoever makes it: for another user only an admin makes one (a
    // user_manager's key for a user whose role is later redefined, or who is later promoted, would be wider than it).
    if (actor !== null && actor.uid !== uid && !actor.rights.includes('admin'))
      throw new UnauthorizedActionError(
        "Only an admin makes an API key for another user: the user makes its own (a user_manager lists and revokes others' keys)",
      );
    secondFactorLogin(actor, owner);
    if (owner.realm !== 'local' && owner.realm !== 'api_key')
      throw new InvalidRequestError(
        `This user signs in through ${owner.realm}, which may stop letting it in while a key would go on: make a service account (auth_method "api_key") for automation`,
      );
    const now = new Date(this.deps.clock());
    const expiresAt = await this.expiry(input, now);
    // A key made for somebody else acts with the roles its owner holds now at most: a later promotion of the owner
    // must not widen a key that its maker (a user_manager, say) holds — only the owner's own keys follow its roles.
    const roleUids = rolesFor(owner, input.role_uids) ?? (actor?.uid === uid ? null : [...owner.roleUids]);
    const allowedCidrs = input.allowed_cidrs === undefined ? null : checkedCidrs(input.allowed_cidrs);
    const key = newKey();
    const made: ApiKey = {
      id: newKeyId(),
      uid,
      name: checkedName(input.name),
      hash: keyHash(key),
      prefix: shownPrefix(key),
      roleUids,
      allowedCidrs,
      createdAt: now,
      expiresAt,
      lastUsedAt: null,
    };
    if (!(await this.deps.store.create(made, MAX_KEYS_PER_USER))) throw new TooManyApiKeysError(MAX_KEYS_PER_USER);
    this.audited(ctx, actor, owner, 'api_key_create', made.id);
    return { ...toApiKeyView(made), key };
  }

  async list(actor: Actor | null, uid: number): Promise<ApiKeyView[]> {
    await this.maySee(actor, uid);
    return (await this.deps.store.listOf(uid)).map(toApiKeyView);
  }

  async get(actor: Actor | null, uid: number, keyId: string): Promise<ApiKeyView> {
    await this.maySee(actor, uid);
    return toApiKeyView(await this.keyOf(uid, keyId));
  }

  /** Its name, its expiry (within the policy, from now), its addresses; nothing else (its roles: make a new key). */
  async update(
    actor: KeyActor | null,
    uid: number,
    keyId: string,
    change: ApiKeyChange,
    ctx: RequestContext,
  ): Promise<ApiKeyView> {
    const owner = await this.mayChange(actor, uid);
    secondFactorLogin(actor, owner);
    const key = await this.keyOf(uid, keyId);
    const now = new Date(this.deps.clock());
    const changes = {
      ...(change.name !== undefined && { name: checkedName(change.name) }),
      ...(change.expires_at !== undefined && {
        expiresAt: await this.expiry({ expires_at: change.expires_at }, now),
      }),
      ...(change.allowed_cidrs !== undefined && {
        allowedCidrs: change.allowed_cidrs === null ? null : checkedCidrs(change.allowed_cidrs),
      }),
    };
    await this.deps.store.update(keyId, changes);
    this.deps.cache.forget(key.hash);
    // What the key's tokens were issued under changed: they end (a login with the key gets one under the new terms).
    if (changes.expiresAt !== undefined || changes.allowedCidrs !== undefined) {
      const until = new Date(now.getTime() + TOKENS_OUTLIVE_MS);
      for (const sid of await this.deps.store.endSessions(keyId, now, until))
        this.deps.revocations.sessionEnded(sid, until);
    }
    this.audited(ctx, actor, owner, 'api_key_update', keyId, Object.keys(change));
    return toApiKeyView({ ...key, ...changes });
  }

  /** Deletes the key and ends its sessions: refused here at once, on other nodes within a second. */
  async revoke(actor: KeyActor | null, uid: number, keyId: string, ctx: RequestContext): Promise<void> {
    const owner = await this.mayChange(actor, uid);
    const key = await this.keyOf(uid, keyId);
    const at = new Date(this.deps.clock());
    const until = new Date(at.getTime() + TOKENS_OUTLIVE_MS);
    const ended = await this.deps.store.delete(keyId, at, until);
    this.deps.cache.forget(key.hash);
    for (const sid of ended) this.deps.revocations.sessionEnded(sid, until);
    this.audited(ctx, actor, owner, 'api_key_revoke', keyId);
  }

  private async keyOf(uid: number, keyId: string): Promise<ApiKey> {
    const key = await this.deps.store.get(keyId);
    if (!key || key.uid !== uid) throw new ApiKeyNotFoundError();
    return key;
  }

  /** The user itself, or who may see it. */
  private async maySee(actor: Actor | null, uid: number): Promise<User> {
    if (actor === null || actor.uid === uid) {
      const user = await this.deps.users.getByUid(uid);
      if (!user) throw new ApiKeyNotFoundError();
      return user;
    }
    return this.deps.accounts.view(actor, uid, (u) => this.deps.users.getByUid(u));
  }

  /**
   * The user itself, or who may manage it — with a login, never with a key (Bearer, Basic, or a
   * token got with one): a leaked key must not make keys that outlive its revocation, nor free or
   * widen its owner's others (GitHub's rule for its tokens).
   */
  private async mayChange(actor: KeyActor | null, uid: number): Promise<User> {
    if (actor?.apiKeyId)
      throw new UnauthorizedActionError(
        'API keys are made, changed and revoked with a login (a password, a certificate, SSO), not with a key',
      );
    const owner = await this.maySee(actor, uid);
    if (actor !== null && actor.uid !== uid) this.deps.accounts.assertMayManage(actor, owner);
    return owner;
  }

  /** The expiry asked for (a time, or days from now): required, in the future, within api_key_max_lifetime_days. */
  private async expiry(input: Pick<NewApiKey, 'expires_at' | 'ttl_days'>, now: Date): Promise<Date> {
    if ((input.expires_at === undefined) === (input.ttl_days === undefined))
      throw new InvalidRequestError('Give the key an expiry: "expires_at" (ISO 8601) or "ttl_days", one of them');
    const at =
      input.ttl_days !== undefined ? new Date(now.getTime() + input.ttl_days * DAY_MS) : parsed(input.expires_at!);
    if (at <= now) throw new InvalidRequestError('expires_at must be in the future');
    const maxDays = (await this.deps.policy.get()).api_key_max_lifetime_days;
    if (at.getTime() - now.getTime() > maxDays * DAY_MS)
      throw new InvalidRequestError(
        `A key lives at most ${maxDays} days (the cluster's api_key_max_lifetime_days): choose an earlier expires_at`,
      );
    return at;
  }

  private audited(
    ctx: RequestContext,
    actor: Actor | null,
    owner: User,
    event: 'api_key_create' | 'api_key_update' | 'api_key_revoke',
    keyId: string,
    changes?: string[],
  ): void {
    this.deps.audit.record(ctx, {
      event,
      outcome: 'success',
      ...actorOf(actor),
      uid: owner.uid,
      username: owner.username,
      target: `api_key ${keyId}`,
      ...(changes && { changes }),
    });
  }
}

/** The roles a new key acts with: those asked for, each one its owner holds; none asked: every role of the owner (null). */
/**
 * A user with a second factor (or whose role requires one) makes and widens its keys with a login
 * that took it: a token got before it (or without it) must not turn into a key that outlives it.
 */
function secondFactorLogin(actor: KeyActor | null, owner: User): void {
  if (actor?.uid === owner.uid && secondFactorOf(owner) && actor.token?.mfa_at === undefined)
    throw new MfaRequiredError(
      'Manage your API keys with a token got with your second factor: log in again (POST /v1/users/authorize, then /v1/users/authorize/mfa)',
    );
}

function rolesFor(owner: User, asked: number[] | undefined): number[] | null {
  if (asked === undefined) return null;
  const roles = [...new Set(asked)].sort((a, b) => a - b);
  const beyond = roles.find((r) => !owner.roleUids.includes(r));
  if (beyond !== undefined)
    throw new UnauthorizedActionError(
      `role_uids: role ${beyond} is not one of the user's roles; a key acts with a subset of them`,
    );
  return roles;
}

function checkedName(name: string): string {
  const trimmed = name.trim();
  // Shown in the console and the CLI's tables: no control characters (a terminal would run an escape sequence).
  if (/[\u0000-\u001f\u007f-\u009f]/.test(trimmed))
    throw new InvalidRequestError('name must not hold control characters (line breaks, escapes)');
  if (trimmed.length === 0 || trimmed.length > 128)
    throw new InvalidRequestError('name must be 1 to 128 characters: what the key is for ("backup job")');
  return trimmed;
}

/** An ISO 8601 date or time; one without a zone is UTC (as the event log reads stime). */
function parsed(text: string): Date {
  const shape = /^\d{4}-\d\d-\d\d(T\d\d:\d\d(:\d\d(\.\d{1,9})?)?(Z|[+-]\d\d:\d\d)?)?$/.exec(text);
  const at = shape && new Date(shape[1] && !shape[4] ? `${text}Z` : text);
  if (!at || Number.isNaN(at.getTime()))
    throw new InvalidRequestError(
      `expires_at must be an ISO 8601 time ("2027-01-31T00:00:00Z"), not "${text.slice(0, 64)}"`,
    );
  return at;
}
