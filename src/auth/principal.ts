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
  /** How it proved who it is: its password (Basic), a token, a client certificate, or an API key. */
  via: 'password' | 'token' | 'certificate' | 'api_key';
  /** The API key it presented (or its token was issued for): its rights are the key's. */
  apiKeyId?: string;
  /** Set when the identity came from a token. */
  token?: TokenClaims;
}
