import type { Clock } from '../clock.js';
import type { Deadline } from '../deadline.js';
import { TryAgainError } from '../errors.js';
import type { User } from '../users/user.js';
import type { UserStore } from '../users/user-store.js';
import { Directory } from './directory.js';
import type { LdapConfig } from './ldap-config.js';
import type { LdapMappingService } from './ldap-mapping-service.js';
import type { LdapSettings } from './ldap-settings.js';

/** Directory checks one node runs at once; more wait their turn within their deadline. */
export const DIRECTORY_CONCURRENCY = 32;

/** How a directory check ended, for metrics. */
export type DirectoryOutcome = 'success' | 'invalid_credentials' | 'no_mapped_group' | 'unavailable';

/**
 * The LDAP realm: who the directory says a user is, and the roles its groups map to. A user
 * of the directory gets a row of its own at its first login (realm `ldap`), which carries
 * its roles, token epoch, lock and last login like a local user's; when its groups map to
 * other roles than before, its roles change and its tokens end in the same write.
 */
export class LdapRealm {
  private running = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    private readonly settings: LdapSettings,
    private readonly mappings: LdapMappingService,
    private readonly users: UserStore,
    private readonly clock: Clock,
  ) {}

  /** Told of every directory check. */
  onChecked: (outcome: DirectoryOutcome, seconds: number) => void = () => {};

  /** The configuration while LDAP logins are on (control_plane), else undefined. */
  async active(): Promise<LdapConfig | undefined> {
    const config = await this.settings.get();
    return config.control_plane && config.uris.length > 0 ? config : undefined;
  }

  /**
   * The directory user these credentials prove, with the roles of its groups now; undefined
   * for a wrong password or a name the directory does not know; 'no_mapped_group' for a
   * right password of a user in no mapped group. Throws DirectoryUnavailableError.
   */
  async verify(config: LdapConfig, username: string, password: string, deadline: Deadline): Promise<User | 'no_mapped_group' | undefined> {
    return this.timed(deadline, async () => {
      const entry = await new Directory(config).authenticate(username, password, deadline);
      if (!entry) return undefined;
      return this.withRoles(username, await this.mappings.rolesFor(entry.groups));
    });
  }

  /**
   * A token's refresh: the user's groups read again by the service account. Undefined when
   * the directory no longer has the user, or no mapped group does (its tokens end then).
   */
  async revalidate(user: User, deadline: Deadline): Promise<User | undefined> {
    const config = await this.active();
    if (!config) return undefined;
    const result = await this.timed(deadline, async () => {
      const entry = await new Directory(config).lookup(user.username, deadline);
      return entry ? this.withRoles(user.username, await this.mappings.rolesFor(entry.groups)) : undefined;
    });
    if (result === undefined || result === 'no_mapped_group') {
      await this.users.revokeTokens(user.uid);
      return undefined;
    }
    return result;
  }

  private async withRoles(username: string, roleUids: number[]): Promise<User | 'no_mapped_group'> {
    const now = new Date(this.clock());
    if (roleUids.length === 0) {
      // Out of every mapped group: a user that had roles loses them, and its tokens end.
      if (await this.users.findDirectoryUser(username)) await this.users.upsertDirectoryUser(username, [], now);
      return 'no_mapped_group';
    }
    return this.users.upsertDirectoryUser(username, roleUids, now);
  }

  /**
   * One directory check, when one of the node's DIRECTORY_CONCURRENCY places is free: a flood
   * of LDAP logins never opens more connections to the directory than that, and a check that
   * finds no place before its deadline answers 503 `try_again`.
   */
  private async timed<T extends User | 'no_mapped_group' | undefined>(deadline: Deadline, check: () => Promise<T>): Promise<T> {
    await this.place(deadline);
    try {
      return await this.measured(check);
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

  private async measured<T extends User | 'no_mapped_group' | undefined>(check: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    try {
      const result = await check();
      this.onChecked(result === undefined ? 'invalid_credentials' : result === 'no_mapped_group' ? 'no_mapped_group' : 'success', seconds());
      return result;
    } catch (err) {
      this.onChecked('unavailable', seconds());
      throw err;
    }
  }
}
