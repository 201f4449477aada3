import type { Role } from './management.js';

/** Who asks for a change (a request's Principal fits); null for the local CLI. */
export interface Actor {
  uid: number;
  username: string;
  rights: readonly Role[];
  /** 'password': the request carried the actor's own password, which proves it. */
  via?: 'password' | 'token' | 'certificate' | 'api_key';
  /** The token the request carried (a Principal's claims fit): its session (`sid`) says when its login proved who the actor is. */
  token?: { readonly sid?: string; readonly mfa_at?: number };
}
