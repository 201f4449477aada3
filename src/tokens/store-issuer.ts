import type { Config } from '../config/config.js';
import { issuerOf } from '../config/config.js';
import type { Db } from '../store/database.js';
import { readSetting, writeSetting } from '../store/settings.js';

const KEY = 'issuer';

/** A node would issue tokens that the other nodes of its store refuse. */
export class IssuerMismatchError extends Error {}

/**
 * One issuer per store. The first node to open a store records the `iss` of its tokens;
 * every node after it must issue the same, or the nodes would refuse each other's tokens
 * (401 invalid_token) with nothing said. A node whose issuer differs:
 * - was given it (--public-url or --issuer): the operator moved the store to it; recorded,
 *   and said (tokens of the old issuer are no longer accepted);
 * - took it from its own listen address on PostgreSQL (a store shared by nodes): refuses to
 *   start, naming both and the setting that makes them one;
 * - took it from its listen address on SQLite (one node, moved): recorded, and said.
 * Returns the issuer the store had before, when it changed.
 */
export async function settleIssuer(db: Db, config: Config): Promise<{ changedFrom?: string }> {
  const mine = issuerOf(config);
  await db
    .insertInto('settings')
    .values({ key: KEY, value: JSON.stringify(mine) })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const stored = await readSetting<string>(db, KEY);
  if (stored === mine) return {};
  const chosen = config.publicUrl !== undefined || config.issuer !== undefined;
  if (!chosen && config.databaseUrl) {
    throw new IssuerMismatchError(
      `this store's tokens are issued as ${stored}, and this node would issue them as ${mine} (from its listen address), so the nodes would refuse each other's tokens: ` +
        `give every node the address clients reach them at, --public-url ${stored} (TESSERA_PUBLIC_URL) to keep the tokens already issued`,
    );
  }
  await writeSetting(db, KEY, mine);
  return { changedFrom: stored };
}
