import type { Clock } from '../clock.js';
import type { Policy } from './policy.js';
import type { PolicyStore } from './policy-store.js';

/** How long a process trusts its copy of the policy before reading the store again. */
export const POLICY_CACHE_MS = 1000;

/**
 * The policy with a one-second cache: a login does not pay a store read for it, a change
 * made here is effective at once, and one made elsewhere (another node) within a second.
 */
export class PolicyService {
  private cached?: { policy: Policy; at: number };

  constructor(
    private readonly store: PolicyStore,
    private readonly clock: Clock,
  ) {}

  async get(): Promise<Policy> {
    const now = this.clock();
    if (!this.cached || now - this.cached.at >= POLICY_CACHE_MS || now < this.cached.at) {
      this.cached = { policy: await this.store.get(), at: now };
    }
    return this.cached.policy;
  }

  async update(patch: Partial<Policy>): Promise<Policy> {
    const policy = Object.freeze({ ...(await this.store.get()), ...patch });
    await this.store.put(policy);
    this.cached = { policy, at: this.clock() };
    return policy;
  }
}
