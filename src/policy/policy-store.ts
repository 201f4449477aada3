import type { Db } from '../store/database.js';
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
    const row = await this.db.selectFrom('settings').select('value').where('key', '=', KEY).executeTakeFirst();
    return Object.freeze({ ...DEFAULT_POLICY, ...(row ? (JSON.parse(row.value) as Partial<Policy>) : {}) });
  }

  async put(policy: Policy): Promise<void> {
    const value = JSON.stringify(policy);
    await this.db
      .insertInto('settings')
      .values({ key: KEY, value })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
      .execute();
  }
}
