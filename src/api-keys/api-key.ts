/** A user's API key as the store keeps it: never the key itself, only its hash. */
export interface ApiKey {
  /** The public id (`key_id`). */
  id: string;
  /** Its owner's uid. */
  uid: number;
  name: string;
  /** SHA-256 of the key, hex. */
  hash: string;
  /** The key's first characters (`tsr_` and 8), to tell it apart. */
  prefix: string;
  /** The roles it acts with, a subset of its owner's (each use: those its owner still holds); null: every role of its owner. */
  roleUids: number[] | null;
  /** The client addresses it is taken from (CIDRs); null: any. */
  allowedCidrs: string[] | null;
  createdAt: Date;
  expiresAt: Date;
  lastUsedAt: Date | null;
}

/** The most keys a user has at once: enough for two to overlap in every rotation of many jobs. */
export const MAX_KEYS_PER_USER = 20;
