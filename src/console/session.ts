import { api } from './api.js';

export type Role = 'admin' | 'user_manager' | 'cluster_member' | 'cluster_viewer' | 'db_member' | 'db_viewer' | 'token_verifier' | 'none';

/** Who is signed in: kept in memory only, never in storage or a URL. */
export interface Session {
  token: string;
  uid: number;
  username: string;
  /** The highest management level the person holds. */
  role: Role;
  /** Every level held, through the own role and roles (the token's roles claim). */
  rights: Role[];
  /** When the token ends, in ms. */
  expiresAt: number;
}

/** Token lifetime asked for; the console renews it while the person is active. */
export const TOKEN_TTL_SECONDS = 300;
/** Renew when less than this is left. */
export const RENEW_BEFORE_MS = 60_000;

function claimsOf(token: string): { uid: number; username: string; roles: string[]; exp: number } {
  const part = token.split('.')[1] ?? '';
  const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(json, (c) => c.charCodeAt(0))));
}

export function sessionOf(token: string): Session {
  const claims = claimsOf(token);
  const rights = (claims.roles.length > 0 ? claims.roles : ['none']) as Role[];
  return { token, uid: claims.uid, username: claims.username, role: rights[0]!, rights, expiresAt: claims.exp * 1000 };
}

export async function signIn(username: string, password: string): Promise<Session> {
  const { access_token } = await api<{ access_token: string }>('POST', '/v1/users/authorize', {
    body: { username, password, ttl: TOKEN_TTL_SECONDS },
  });
  return sessionOf(access_token);
}

export async function renew(session: Session): Promise<Session> {
  const { access_token } = await api<{ access_token: string }>('POST', '/v1/users/refresh_jwt', {
    token: session.token,
    body: { ttl: TOKEN_TTL_SECONDS },
  });
  return sessionOf(access_token);
}

/** Ends the token on the server too; a failure changes nothing for the person, who is signed out. */
export async function signOut(session: Session): Promise<void> {
  await api('POST', '/v1/users/logout', { token: session.token }).catch(() => undefined);
}

export const mayManageUsers = (s: Session) => s.rights.includes('admin') || s.rights.includes('user_manager');
export const isAdmin = (s: Session) => s.rights.includes('admin');
