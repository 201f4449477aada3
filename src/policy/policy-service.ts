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

  /** Sets these fields, or applies `change` to the policy as the store has it, no other change in between (on any node); effective here at once. */
  async update(
    change: Partial<Policy> | ((current: Policy) => Partial<Policy>),
  ): Promise<{ before: Policy; after: Policy }> {
    const changed = await this.store.update(typeof change === 'function' ? change : () => change);
    this.cache.set(changed.after);
    return changed;
  }
}
