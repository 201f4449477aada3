import type { Generated } from 'kysely';

/** Table shapes as the database holds them. Dates are ISO-8601 UTC strings. */
export interface UsersTable {
  uid: Generated<number>;
  username: string;
  /** NFKC + case-folded username: the unique lookup key. */
  username_key: string;
  name: string | null;
  role: string;
  password_hash: string;
  password_issue_date: string;
  /** Set when an administrator forces the password to expire. */
  password_expires_at: string | null;
  created_at: string;
  last_login: string | null;
}

export interface SigningKeysTable {
  kid: string;
  alg: string;
  public_jwk: string;
  private_jwk: string;
  state: string;
  created_at: string;
}

export interface Database {
  users: UsersTable;
  signing_keys: SigningKeysTable;
}
