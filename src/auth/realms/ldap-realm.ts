import { isDeepStrictEqual } from 'node:util';
import type { RealmName } from '../../access/realm-name.js';
import type { Clock } from '../../clock.js';
import type { Deadline } from '../../deadline.js';
import { CertificateRefusedError, InvalidCredentialsError, TryAgainError } from '../../errors.js';
import type { EventHub } from '../../events.js';
import { Directory, type DirectoryEntry, type PassedOver } from '../../ldap/directory.js';
import { normalizeDn } from '../../ldap/escape.js';
import type { LdapConfig } from '../../ldap/ldap-config.js';
import type { LdapSettings } from '../../ldap/ldap-settings.js';
import type { User } from '../../users/user.js';
import type { UserStore } from '../../users/user-store.js';
import { canonicalName } from '../../users/username.js';
import {
  type Attempt,
  type CertificateProof,
  NOT_MINE,
  type NotMine,
  type PasswordProof,
  type PasswordRealm,
  type Proof,
  type Verdict,
} from './realm.js';

/** How one directory check ended (a login, a Basic call past cache_ttl, a refresh). */
export type DirectoryOutcome = 'success' | 'invalid_credentials' | 'no_mapped_group' | 'unavailable';

declare module '../../events.js' {
  interface TesseraEvents {
    directoryChecked: [outcome: DirectoryOutcome, seconds: number];
  }
}

/** Directory checks one node runs at once; more wait their turn within their deadline. */
export const DIRECTORY_CONCURRENCY = 32;

/** The subject attribute that names a directory user by default (cba_identity_source "subject_cn"): commonName. */
const COMMON_NAME = '2.5.4.3';

/** The audit reason of a right password that maps to no role. */
const NO_MAPPED_GROUP = 'ldap: no mapped group';

/**
 * The LDAP directory's users: who the directory says a user is (its entry, found by a bind
 * as the user), and the roles its groups map to. A directory user gets a row of its own at
 * its first login, keyed by its entry (the DN the directory reads back, never the name as
 * typed), which carries its roles, token epoch, lock and last login like a local user's;
 * when its groups map to other roles than before, its roles change and its tokens end.
 */
export class LdapRealm implements PasswordRealm {
  readonly name = 'ldap';
  private running = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    private readonly settings: LdapSettings,
    private readonly mappings: { rolesFor(groupDns: readonly string[]): Promise<number[]> },
    private readonly users: Pick<UserStore, 'findByDirectoryKey' | 'upsertDirectoryUser' | 'revokeTokens'>,
    private readonly passedOver: PassedOver,
    private readonly events: EventHub,
    private readonly clock: Clock,
  ) {}

  async supports(proof: Proof): Promise<boolean> {
    if (proof.kind === 'certificate') return (await this.certificates()) !== undefined;
    return proof.kind === 'password' && (await this.active()) !== undefined;
  }

  owns(user: User): boolean {
    return user.realm === 'ldap';
  }

  async authenticate(proof: Proof, { account, deadline }: Attempt): Promise<Verdict> {
    if (proof.kind === 'certificate') return this.certificateLogin(proof, deadline);
    if (proof.kind !== 'password' || (account && !this.owns(account))) return NOT_MINE;
    const config = await this.active();
    if (!config) return NOT_MINE;
    // Sent as the directory compares it (NFKC, insignificant spaces gone): the entry found is the same either way.
    const name = canonicalName(proof.username);
    return this.checked(
      deadline,
      async () => {
        const entry = await this.directory(config).authenticate(name, proof.password, deadline);
        if (!entry)
          return {
            outcome: 'refused',
            error: new InvalidCredentialsError(),
            guess: true,
            reason: 'ldap: wrong password or no such entry',
          };
        const directoryKey = normalizeDn(entry.dn);
        // The account this name found is another entry's (the directory moved the name): not this login's.
        if (account?.directoryKey && account.directoryKey !== directoryKey) {
          return {
            outcome: 'refused',
            error: new InvalidCredentialsError(),
            guess: false,
            reason: "ldap: the name is another entry's account",
          };
        }
        const user = await this.withRoles(entry, name, account?.directoryKey === null ? account.uid : undefined);
        if (user === 'taken')
          return {
            outcome: 'refused',
            error: new InvalidCredentialsError(),
            guess: false,
            reason: "ldap: the name is another account's",
          };
        // A right password of a user in no mapped group is not a guess (not counted), but no login.
        if (user === 'no_mapped_group')
          return { outcome: 'refused', error: new InvalidCredentialsError(), guess: false, reason: NO_MAPPED_GROUP };
        await this.sameSettings(config);
        // The directory vouched for the name it was given (an alias of the entry, say its mail), within cache_ttl.
        return { outcome: 'success', realm: 'ldap', user, rememberMs: config.cache_ttl * 1000, vouchesForName: true };
      },
      verdictOutcome,
    );
  }

  /**
   * A token's refresh: the user's entry and groups read again by the service account.
   * Undefined when the directory no longer has the user, or no mapped group does (its tokens end then).
   */
  async refresh(user: User, deadline: Deadline): Promise<User | undefined | NotMine> {
    if (!this.owns(user)) return NOT_MINE;
    const config = await this.active();
    if (!config) return undefined;
    const result = await this.checked(
      deadline,
      async () => {
        // Found again as its login found it (by its name), and still the same entry.
        const entry = await this.directory(config).lookup(user.username, deadline);
        if (!entry || (user.directoryKey && normalizeDn(entry.dn) !== user.directoryKey)) return undefined;
        return this.withRoles(entry, user.username, user.directoryKey === null ? user.uid : undefined);
      },
      (r) => (typeof r === 'object' ? 'success' : r === 'no_mapped_group' ? r : 'invalid_credentials'),
    );
    if (typeof result === 'object') {
      await this.sameSettings(config);
      return result;
    }
    await this.users.revokeTokens(user.uid);
    return undefined;
  }

  async account(proof: PasswordProof, deadline: Deadline): Promise<User | undefined> {
    const config = await this.active();
    if (!config) return undefined;
    const dn = await this.checked(deadline, () =>
      this.directory(config).findDn(canonicalName(proof.username), deadline),
    );
    return dn === undefined ? undefined : this.users.findByDirectoryKey(normalizeDn(dn));
  }

  async lookup(name: string, deadline: Deadline): Promise<RealmName | undefined> {
    const config = await this.active();
    if (!config) return undefined;
    const entry = await this.checked(deadline, () => this.directory(config).lookup(canonicalName(name), deadline));
    return entry && 'ldap';
  }

  /**
   * A client certificate the certificate guards found trusted, naming a directory user (cba):
   * the user its subject's CN (or the attribute of cba_identity_oid) names, found by the
   * service account as a login's name is, with the roles its groups map to. The directory is
   * asked again past cache_ttl (a user it no longer has is refused then). Nobody of that name
   * in the directory: not this realm's certificate.
   */
  private async certificateLogin(proof: CertificateProof, deadline: Deadline): Promise<Verdict> {
    const config = await this.certificates();
    if (!config) return NOT_MINE;
    const { subjectAttribute } = await import('../../certs/certificate-path.js');
    const oid = config.cba_identity_source === 'subject_oid' ? config.cba_identity_oid : COMMON_NAME;
    const refusal = (why: string): Verdict => ({
      outcome: 'refused',
      error: new CertificateRefusedError('certificate_subject_unknown', why),
      guess: false,
      reason: `ldap: ${why}`,
    });
    const { values, multiValuedRdn } = subjectAttribute(proof.certificate.leaf, oid);
    if (values.length > 1 || multiValuedRdn)
      return refusal(
        `the certificate's subject has more than one ${oid}, or a multi-valued RDN: it must name one user`,
      );
    const name = canonicalName(values[0] ?? '');
    if (name.trim() === '') return NOT_MINE;
    const verdict = await this.checked(
      deadline,
      async (): Promise<Verdict> => {
        const entry = await this.directory(config).lookup(name, deadline);
        if (!entry) return NOT_MINE;
        const user = await this.withRoles(entry, name);
        if (user === 'taken') return refusal(`"${name}" is the name of a user who is not the directory's`);
        if (user === 'no_mapped_group') return refusal(`the directory's "${name}" is in no group mapped to a role`);
        return { outcome: 'success', realm: 'ldap', user, rememberMs: config.cache_ttl * 1000 };
      },
      (v) => (v.outcome === 'not_mine' ? 'invalid_credentials' : verdictOutcome(v)),
    );
    if (verdict.outcome === 'success') await this.sameSettings(config);
    return verdict;
  }

  /** The configuration while certificate logins of directory users are on (cba, with LDAP logins). */
  private async certificates(): Promise<LdapConfig | undefined> {
    const config = await this.active();
    return config?.cba ? config : undefined;
  }

  /**
   * The settings a check used are still the store's, read after the account was: a change
   * made meanwhile (LDAP turned off, another directory) raises every directory user's epoch
   * after that read, so the check must not stand — on this node or another, whose copy of the
   * settings may be a second old.
   */
  private async sameSettings(used: LdapConfig): Promise<void> {
    if (!isDeepStrictEqual(await this.settings.reload(), used))
      throw new TryAgainError('The LDAP settings changed during the login; try again');
  }

  /** The configuration while LDAP logins are on (control_plane), else undefined. */
  private async active(): Promise<LdapConfig | undefined> {
    const config = await this.settings.get();
    return config.control_plane && config.uris.length > 0 ? config : undefined;
  }

  private directory(config: LdapConfig): Directory {
    return new Directory(config, this.passedOver);
  }

  /** The entry's account with the roles of its groups now; made at its first login (`adopt`: a row of before 0005 that becomes it). */
  private async withRoles(
    entry: DirectoryEntry,
    name: string,
    adopt?: number,
  ): Promise<User | 'no_mapped_group' | 'taken'> {
    const roleUids = await this.mappings.rolesFor(entry.groups);
    const directoryKey = normalizeDn(entry.dn);
    if (roleUids.length === 0) {
      // Out of every mapped group: a user that had roles loses them, and its tokens end.
      if (await this.users.findByDirectoryKey(directoryKey))
        await this.users.upsertDirectoryUser({ directoryKey, name, roleUids }, new Date(this.clock()));
      return 'no_mapped_group';
    }
    return (
      (await this.users.upsertDirectoryUser(
        { directoryKey, name, roleUids, ...(adopt !== undefined && { adopt }) },
        new Date(this.clock()),
      )) ?? 'taken'
    );
  }

  /**
   * One directory check, when one of the node's DIRECTORY_CONCURRENCY places is free: a flood
   * of LDAP logins never opens more connections to the directory than that, and a check that
   * finds no place before its deadline answers 503 `try_again`. Its outcome is announced.
   */
  private async checked<T>(
    deadline: Deadline,
    check: () => Promise<T>,
    outcomeOf?: (result: T) => DirectoryOutcome,
  ): Promise<T> {
    await this.place(deadline);
    const started = performance.now();
    // A lookup (no password checked) is no directory check of the metrics.
    const announce = (outcome: DirectoryOutcome) =>
      outcomeOf && this.events.emit('directoryChecked', outcome, (performance.now() - started) / 1000);
    try {
      const result = await check();
      if (outcomeOf) announce(outcomeOf(result));
      return result;
    } catch (err) {
      announce('unavailable');
      throw err;
    } finally {
      const next = this.queue.shift();
      if (next) next();
      else this.running--;
    }
  }

  private place(deadline: Deadline): Promise<void> {
    if (this.running < DIRECTORY_CONCURRENCY) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const turn = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.queue.splice(this.queue.indexOf(turn), 1);
        reject(new TryAgainError('Too many logins are waiting for the LDAP directory; try again shortly'));
      }, deadline.remaining());
      this.queue.push(turn);
    });
  }
}

/** How a login's check ended, for the metrics. */
function verdictOutcome(verdict: Verdict): DirectoryOutcome {
  if (verdict.outcome === 'success') return 'success';
  return verdict.outcome === 'refused' && verdict.reason === NO_MAPPED_GROUP
    ? 'no_mapped_group'
    : 'invalid_credentials';
}
