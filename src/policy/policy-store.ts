import type { Db } from '../store/database.js';
import { readSetting, writeSetting } from '../store/settings.js';
import { DEFAULT_POLICY, type Policy } from './policy.js';

export interface PolicyStore {
  get(): Promise<Policy>;
  put(policy: Policy): Promise<void>;
}

const KEY = 'cluster_policy';

/** The policy as one JSON row of the settings table; defaults fill what it lacks. */
export class KyselyPolicyStore implements PolicyStore {
  constructor(private readonly db: Db) {}

  async get(): Promise<Policy> {
    return Object.freeze({ ...DEFAULT_POLICY, ...(await readSetting<Partial<Policy>>(this.db, KEY)) });
  }

  put(policy: Policy): Promise<void> {
    return writeSetting(this.db, KEY, policy);
  }
}
