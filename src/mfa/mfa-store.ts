import type { Selectable } from 'kysely';
import type { Db } from '../store/database.js';
import type { MfaFactorsTable } from '../store/schema.js';
import { serialized } from '../store/serialized.js';
import { FACTOR_TYPES, type Factor, type FactorType } from './factor.js';

/** What is kept between two steps: a login's challenge (its mfa_token's digest), or a passkey's registration. */
export interface Challenge {
  id: string;
  uid: number;
  purpose: 'login' | 'register';
  /** The client it was given to: taken from that one only. */
  client: string;
  data: Record<string, unknown>;
  attempts: number;
  expiresAt: Date;
}

/**
 * Users' second factors, recovery codes and challenges. Every "once" is decided by the store
 * with one conditional write, so that it holds across nodes: a TOTP step is taken when it is
 * later than the last one taken, a recovery code and a challenge when a delete finds them.
 */
export interface MfaStore {
  /** A TOTP secret waiting for its first code, replacing any other the user has waiting. */
  addPending(factor: Factor): Promise<void>;
  /** Turns a waiting factor into one (its first code's step taken) unless the user has `max` already: false when it was not waiting or is one too many. */
  confirm(id: string, uid: number, step: number, max: number): Promise<boolean>;
  /** A factor proven as it is made (a passkey), unless the user has `max` already. */
  add(factor: Factor, max: number): Promise<boolean>;
  get(id: string): Promise<Factor | undefined>;
  /** The user's factors, waiting ones included. */
  listOf(uid: number): Promise<Factor[]>;
  delete(id: string, uid: number): Promise<boolean>;
  /** Every factor and recovery code of the user: how many factors there were. */
  deleteAll(uid: number): Promise<number>;
  /** Takes a TOTP step, later than any taken before (one use on every node). */
  takeStep(id: string, step: number, at: Date): Promise<boolean>;
  /** A passkey's use: its new signature counter. */
  used(id: string, counter: number, at: Date): Promise<void>;
  replaceRecoveryCodes(uid: number, hashes: readonly string[]): Promise<void>;
  /** Takes a recovery code: true once, on one node. */
  takeRecoveryCode(uid: number, hash: string): Promise<boolean>;
  recoveryCodesLeft(uid: number): Promise<number>;
  /** The digests of the user's recovery codes left (a code is looked for without being taken). */
  recoveryCodeHashes(uid: number): Promise<string[]>;
  putChallenge(challenge: Challenge): Promise<void>;
  challenge(id: string): Promise<Challenge | undefined>;
  /** Reserves one answer of a challenge before it is checked: false when it has had `max` (on any node, at once). */
  reserveAttempt(id: string, max: number): Promise<boolean>;
  /** Takes a challenge: true once, on one node. */
  takeChallenge(id: string): Promise<boolean>;
  /** Drops challenges and waiting secrets past their time. */
  sweep(now: Date, pendingBefore: Date): Promise<void>;
}

const type = (value: string): FactorType => FACTOR_TYPES.find((t) => t === value) ?? 'totp';

function toFactor(row: Selectable<MfaFactorsTable>): Factor {
  return {
    id: row.id,
    uid: Number(row.uid),
    type: type(row.type),
    name: row.name,
    confirmed: Number(row.confirmed) === 1,
    secret: row.secret,
    lastStep: row.last_step === null ? null : Number(row.last_step),
    credentialId: row.credential_id,
    publicKey: row.public_key,
    counter: Number(row.counter),
    transports: row.transports === null ? null : (JSON.parse(row.transports) as string[]),
    createdAt: new Date(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at),
  };
}

function toRow(factor: Factor) {
  return {
    id: factor.id,
    uid: factor.uid,
    type: factor.type,
    name: factor.name,
    confirmed: factor.confirmed ? 1 : 0,
    secret: factor.secret,
    last_step: factor.lastStep,
    credential_id: factor.credentialId,
    public_key: factor.publicKey,
    counter: factor.counter,
    transports: factor.transports === null ? null : JSON.stringify(factor.transports),
    created_at: factor.createdAt.toISOString(),
    last_used_at: null,
  };
}

export class KyselyMfaStore implements MfaStore {
  constructor(private readonly db: Db) {}

  addPending(factor: Factor): Promise<void> {
    return serialized(this.db, async (trx) => {
      await trx
        .deleteFrom('mfa_factors')
        .where('uid', '=', factor.uid)
        .where('type', '=', factor.type)
        .where('confirmed', '=', 0)
        .execute();
      await trx.insertInto('mfa_factors').values(toRow(factor)).execute();
    });
  }

  confirm(id: string, uid: number, step: number, max: number): Promise<boolean> {
    return serialized(this.db, async (trx) => {
      if ((await this.confirmedCount(trx, uid)) >= max) return false;
      const done = await trx
        .updateTable('mfa_factors')
        .set({ confirmed: 1, last_step: step })
        .where('id', '=', id)
        .where('uid', '=', uid)
        .where('confirmed', '=', 0)
        .executeTakeFirst();
      return Number(done.numUpdatedRows) === 1;
    });
  }

  add(factor: Factor, max: number): Promise<boolean> {
    return serialized(this.db, async (trx) => {
      if ((await this.confirmedCount(trx, factor.uid)) >= max) return false;
      await trx.insertInto('mfa_factors').values(toRow(factor)).execute();
      return true;
    });
  }

  private async confirmedCount(trx: Pick<Db, 'selectFrom'>, uid: number): Promise<number> {
    const { count } = await trx
      .selectFrom('mfa_factors')
      .select((eb) => eb.fn.countAll<string | number>().as('count'))
      .where('uid', '=', uid)
      .where('confirmed', '=', 1)
      .executeTakeFirstOrThrow();
    return Number(count);
  }

  async get(id: string): Promise<Factor | undefined> {
    const row = await this.db.selectFrom('mfa_factors').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toFactor(row);
  }

  async listOf(uid: number): Promise<Factor[]> {
    const rows = await this.db
      .selectFrom('mfa_factors')
      .selectAll()
      .where('uid', '=', uid)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toFactor);
  }

  async delete(id: string, uid: number): Promise<boolean> {
    const done = await this.db.deleteFrom('mfa_factors').where('id', '=', id).where('uid', '=', uid).executeTakeFirst();
    return Number(done.numDeletedRows) === 1;
  }

  deleteAll(uid: number): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('mfa_recovery_codes').where('uid', '=', uid).execute();
      await trx.deleteFrom('mfa_challenges').where('uid', '=', uid).execute();
      const done = await trx
        .deleteFrom('mfa_factors')
        .where('uid', '=', uid)
        .where('confirmed', '=', 1)
        .executeTakeFirst();
      await trx.deleteFrom('mfa_factors').where('uid', '=', uid).execute();
      return Number(done.numDeletedRows);
    });
  }

  async takeStep(id: string, step: number, at: Date): Promise<boolean> {
    const done = await this.db
      .updateTable('mfa_factors')
      .set({ last_step: step, last_used_at: at.toISOString() })
      .where('id', '=', id)
      .where('confirmed', '=', 1)
      .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)]))
      .executeTakeFirst();
    return Number(done.numUpdatedRows) === 1;
  }

  async used(id: string, counter: number, at: Date): Promise<void> {
    await this.db
      .updateTable('mfa_factors')
      .set({ counter, last_used_at: at.toISOString() })
      .where('id', '=', id)
      .execute();
  }

  replaceRecoveryCodes(uid: number, hashes: readonly string[]): Promise<void> {
    return this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('mfa_recovery_codes').where('uid', '=', uid).execute();
      await trx
        .insertInto('mfa_recovery_codes')
        .values(hashes.map((hash) => ({ uid, hash })))
        .execute();
    });
  }

  async takeRecoveryCode(uid: number, hash: string): Promise<boolean> {
    const done = await this.db
      .deleteFrom('mfa_recovery_codes')
      .where('uid', '=', uid)
      .where('hash', '=', hash)
      .executeTakeFirst();
    return Number(done.numDeletedRows) === 1;
  }

  async recoveryCodesLeft(uid: number): Promise<number> {
    const { count } = await this.db
      .selectFrom('mfa_recovery_codes')
      .select((eb) => eb.fn.countAll<string | number>().as('count'))
      .where('uid', '=', uid)
      .executeTakeFirstOrThrow();
    return Number(count);
  }

  async recoveryCodeHashes(uid: number): Promise<string[]> {
    const rows = await this.db.selectFrom('mfa_recovery_codes').select('hash').where('uid', '=', uid).execute();
    return rows.map((r) => r.hash);
  }

  putChallenge(c: Challenge): Promise<void> {
    return serialized(this.db, async (trx) => {
      await trx.deleteFrom('mfa_challenges').where('id', '=', c.id).execute();
      await trx
        .insertInto('mfa_challenges')
        .values({
          id: c.id,
          uid: c.uid,
          purpose: c.purpose,
          client: c.client,
          data: JSON.stringify(c.data),
          attempts: c.attempts,
          expires_at: c.expiresAt.toISOString(),
        })
        .execute();
    });
  }

  async challenge(id: string): Promise<Challenge | undefined> {
    const row = await this.db.selectFrom('mfa_challenges').selectAll().where('id', '=', id).executeTakeFirst();
    return (
      row && {
        id: row.id,
        uid: Number(row.uid),
        purpose: row.purpose === 'register' ? 'register' : 'login',
        client: row.client,
        data: JSON.parse(row.data) as Record<string, unknown>,
        attempts: Number(row.attempts),
        expiresAt: new Date(row.expires_at),
      }
    );
  }

  async reserveAttempt(id: string, max: number): Promise<boolean> {
    const done = await this.db
      .updateTable('mfa_challenges')
      .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where('id', '=', id)
      .where('attempts', '<', max)
      .executeTakeFirst();
    return Number(done.numUpdatedRows) === 1;
  }

  async takeChallenge(id: string): Promise<boolean> {
    const done = await this.db.deleteFrom('mfa_challenges').where('id', '=', id).executeTakeFirst();
    return Number(done.numDeletedRows) === 1;
  }

  async sweep(now: Date, pendingBefore: Date): Promise<void> {
    await this.db.deleteFrom('mfa_challenges').where('expires_at', '<', now.toISOString()).execute();
    await this.db
      .deleteFrom('mfa_factors')
      .where('confirmed', '=', 0)
      .where('created_at', '<', pendingBefore.toISOString())
      .execute();
  }
}
