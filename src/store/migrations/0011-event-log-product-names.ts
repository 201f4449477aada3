import type { Kysely, Migration } from 'kysely';

/** The event log's types renamed to the product's name for the same event (issue 35), old → new. Never edited: a later rename is a later migration. */
const RENAMED: readonly (readonly [string, string])[] = [
  // A change of the cluster's settings (PUT /v1/cluster, /v1/cluster/policy): the product's "Cluster settings updated".
  ['policy_update', 'cluster_updated'],
];

/**
 * The events kept under a name that the log no longer writes read back, and are found, under
 * the product's name: one name for one event in the store, so that a filter, the pruning and
 * every reader need no list of former names. The JSON audit lines keep their own names.
 */
export function eventLogProductNames(): Migration {
  return {
    async up(db: Kysely<any>) {
      for (const [from, to] of RENAMED)
        await db.updateTable('event_log').set({ type: to }).where('type', '=', from).execute();
    },
  };
}
