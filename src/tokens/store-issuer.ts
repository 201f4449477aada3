import type { Clock } from '../clock.js';
import type { Config } from '../config/config.js';
import { issuerOf } from '../config/config.js';
import type { Db } from '../store/database.js';
import { readSetting, writeSetting } from '../store/settings.js';
import { TTL_MAX_SECONDS } from './claims.js';

const CURRENT = 'issuer';
const PREVIOUS = 'issuer_previous';

/** How long the issuer a store moved from stays accepted, unless told: a token issued just before the move lives this long. */
export const MOVE_OVERLAP_MS = TTL_MAX_SECONDS * 1000;

/** The `iss` of a store's tokens, and the one it had before a move while tokens of that one are still accepted. */
export interface IssuerRecord {
  /** Undefined until a node first opens the store (or `tessera issuer move` names one). */
  current?: string;
  previous?: { issuer: string; until: number };
}

/** A node would issue tokens that the other nodes of its store refuse. */
export class IssuerMismatchError extends Error {}

export async function readIssuer(db: Db): Promise<IssuerRecord> {
  const [current, previous] = await Promise.all([
    readSetting<string>(db, CURRENT),
    readSetting<IssuerRecord['previous']>(db, PREVIOUS),
  ]);
  return { ...(current !== undefined && { current }), ...(previous && { previous }) };
}

/**
 * Moves a store's tokens to another issuer on purpose (`tessera issuer move`): every node
 * accepts tokens of the new one within a second, and of the old one until `now + overlapMs`,
 * while its nodes are restarted with the new --public-url. Returns the record as it is now.
 */
export async function moveIssuer(db: Db, to: string, overlapMs: number, clock: Clock): Promise<IssuerRecord> {
  return db.transaction().execute(async (trx) => {
    const before = await readIssuer(trx);
    if (before.current === undefined || before.current === to) {
      await writeSetting(trx, CURRENT, to);
      return { ...before, current: to };
    }
    const previous = { issuer: before.current, until: clock() + overlapMs };
    await writeSetting(trx, CURRENT, to);
    await writeSetting(trx, PREVIOUS, previous);
    return { current: to, previous };
  });
}

/** What a node starting on a store learned of its issuer. */
export interface SettledIssuer {
  /** This single node (SQLite) moved the store's tokens from another issuer; that one is accepted until then. */
  movedFrom?: { issuer: string; until: number };
  /** The store moved to another issuer: this node still issues the old one, accepted until then. */
  movingTo?: { issuer: string; until: number };
}

/**
 * One issuer per store. The first node to open a store records the `iss` of its tokens;
 * every other node must issue the same, or the nodes would refuse each other's tokens (401
 * invalid_token) with nothing said. A node whose issuer differs:
 * - on PostgreSQL (a store nodes share) refuses to start, naming both and the two ways out:
 *   keep the store's, or move it on purpose (`tessera issuer move`, which the running nodes
 *   pick up) — unless it issues the one the store moved from, while that is still accepted;
 * - on SQLite (one node: the data directory is locked) moves it, the old one still accepted
 *   for the lifetime of the tokens issued under it.
 */
export async function settleIssuer(db: Db, config: Config, clock: Clock): Promise<SettledIssuer> {
  const mine = issuerOf(config);
  await db
    .insertInto('settings')
    .values({ key: CURRENT, value: JSON.stringify(mine) })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const { current, previous } = await readIssuer(db);
  if (current === mine || current === undefined) return {};
  if (previous?.issuer === mine && previous.until > clock())
    return { movingTo: { issuer: current, until: previous.until } };
  if (config.databaseUrl) {
    const flag = config.issuer !== undefined ? '--issuer' : '--public-url';
    const from = config.issuer === undefined && config.publicUrl === undefined ? ' (from its listen address)' : '';
    throw new IssuerMismatchError(
      `this store's tokens are issued as ${current}, and this node would issue them as ${mine}${from}: the nodes would refuse each other's tokens. ` +
        `Start it with ${flag} ${current} to keep the store's issuer, or move the cluster on purpose with "tessera issuer move ${mine}" on this store ` +
        `(the running nodes then accept both for a day, while each is restarted with ${flag} ${mine})`,
    );
  }
  const moved = await moveIssuer(db, mine, MOVE_OVERLAP_MS, clock);
  return { movedFrom: moved.previous };
}

/** The line a starting node says of its issuer, when there is one to say. */
export function settledNotice(settled: SettledIssuer, mine: string): string | undefined {
  const at = (ms: number) => new Date(ms).toISOString();
  if (settled.movedFrom) {
    return `The tokens' issuer moved from ${settled.movedFrom.issuer} to ${mine}: tokens issued as the old one are accepted until ${at(settled.movedFrom.until)}`;
  }
  if (settled.movingTo) {
    return `This store's tokens are moving to the issuer ${settled.movingTo.issuer}: this node still issues ${mine}, accepted until ${at(settled.movingTo.until)}; restart it with the new --public-url before then`;
  }
  return undefined;
}
