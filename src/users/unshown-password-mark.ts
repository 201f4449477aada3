import type { Db } from '../store/database.js';
import { readSetting, writeSetting } from '../store/settings.js';

/**
 * Remembers, across a start that dies, that a first admin got a generated password that was
 * not shown yet. `nonce` tells apart the nodes that start together on an empty store;
 * `issuedAt` is the password's issue date once the admin exists.
 */
export interface UnshownPassword {
  username: string;
  nonce: string;
  issuedAt?: string;
}

export interface UnshownPasswordMark {
  get(): Promise<UnshownPassword | undefined>;
  put(mark: UnshownPassword): Promise<void>;
  /** Removes the mark if it is still the one with `nonce`. */
  clear(nonce: string): Promise<void>;
}

const KEY = 'first_admin_password_unshown';

/** The mark as one JSON row of the settings table. */
export class KyselyUnshownPasswordMark implements UnshownPasswordMark {
  constructor(private readonly db: Db) {}

  get(): Promise<UnshownPassword | undefined> {
    return readSetting<UnshownPassword>(this.db, KEY);
  }

  put(mark: UnshownPassword): Promise<void> {
    return writeSetting(this.db, KEY, mark);
  }

  async clear(nonce: string): Promise<void> {
    // One statement, so that a node's clear never takes away another node's newer mark.
    const ours = `%"nonce":"${nonce.replace(/[^0-9a-f-]/g, '')}"%`;
    await this.db.deleteFrom('settings').where('key', '=', KEY).where('value', 'like', ours).execute();
  }
}
