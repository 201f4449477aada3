import type { Db } from '../store/database.js';
import { serialized } from '../store/serialized.js';
import { readSetting, writeSetting } from '../store/settings.js';
import { DEFAULT_POLICY, type Policy } from './policy.js';

export interface PolicyStore {
  get(): Promise<Policy>;
  /** Reads the policy, applies `change` to it and writes the result, with no other change in between (on any node). */
  update(change: (current: Policy) => Partial<Policy>): Promise<{ before: Policy; after: Policy }>;
}

const KEY = 'cluster_policy';

/** The policy as one JSON row of the settings table; defaults fill what it lacks. */
export class KyselyPolicyStore implements PolicyStore {
  constructor(private readonly db: Db) {}

  get(): Promise<Policy> {
    return read(this.db);
  }

  update(change: (current: Policy) => Partial<Policy>): Promise<{ before: Policy; after: Policy }> {
    return serialized(this.db, async (trx) => {
      const before = await read(trx);
      const after = Object.freeze({ ...before, ...change(before) });
      await writeSetting(trx, KEY, after);
      return { before, after };
    });
  }
}

async function read(db: Db): Promise<Policy> {
  return Object.freeze({ ...DEFAULT_POLICY, ...(await readSetting<Partial<Policy>>(db, KEY)) });
}
