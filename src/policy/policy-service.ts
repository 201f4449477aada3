import type { Clock } from '../clock.js';
import { SettingCache } from '../store/setting-cache.js';
import type { Policy } from './policy.js';
import type { PolicyStore } from './policy-store.js';

/**
 * The policy with a one-second cache: a login does not pay a store read for it, a change
 * made here is effective at once, and one made elsewhere (another node) within a second.
 */
export class PolicyService {
  private readonly cache: SettingCache<Policy>;

  constructor(
    private readonly store: PolicyStore,
    clock: Clock,
  ) {
    this.cache = new SettingCache(() => store.get(), clock);
  }

  get(): Promise<Policy> {
    return this.cache.get();
  }

  /** The policy as the store has it now (not this process's copy of up to a second ago). */
  reload(): Promise<Policy> {
    return this.cache.reload();
  }

  /** The policy when this process read it within the second, without waiting; else undefined. */
  fresh(): Policy | undefined {
    return this.cache.fresh();
  }

  async update(patch: Partial<Policy>): Promise<Policy> {
    const policy = Object.freeze({ ...(await this.store.get()), ...patch });
    await this.store.put(policy);
    this.cache.set(policy);
    return policy;
  }
}
