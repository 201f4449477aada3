import type { Role } from '../access/management.js';
import type { TokenClaims } from '../tokens/claims.js';

/** The identity of a request, from a token or from a password check. */
export interface Principal {
  uid: number;
  username: string;
  /** The highest of `rights`: what the user object shows as its role. */
  role: Role;
  /** Every management level the user holds, highest first. */
  rights: Role[];
  /** How it proved who it is: its password (Basic), a token, or a client certificate. */
  via: 'password' | 'token' | 'certificate';
  /** Set when the identity came from a token. */
  token?: TokenClaims;
}
