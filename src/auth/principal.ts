import type { TokenClaims } from '../tokens/claims.js';
import type { Role } from '../users/user.js';

/** The identity of a request, from a token or from a password check. */
export interface Principal {
  uid: number;
  username: string;
  role: Role;
  /** Set when the identity came from a token. */
  token?: TokenClaims;
}
