import type { Clock } from '../clock.js';
import { SettingCache } from '../store/setting-cache.js';
import type { Role } from './role.js';
import type { RoleStore } from './role-store.js';

/**
 * Every role by uid, read from the store at most once a second: what narrows an API key's
 * rights to the roles it names, on every use, without a store round trip.
 */
export class RoleCatalog {
  private readonly cache: SettingCache<ReadonlyMap<number, Role>>;

  constructor(store: Pick<RoleStore, 'list'>, clock: Clock) {
    this.cache = new SettingCache(async () => new Map((await store.list()).map((r) => [r.uid, r])), clock);
  }

  get(): Promise<ReadonlyMap<number, Role>> {
    return this.cache.get();
  }

  fresh(): ReadonlyMap<number, Role> | undefined {
    return this.cache.fresh();
  }
}
