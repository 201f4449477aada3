import { ApiError, api } from './api.js';

export type Role =
  | 'admin'
  | 'user_manager'
  | 'cluster_member'
  | 'cluster_viewer'
  | 'db_member'
  | 'db_viewer'
  | 'token_verifier'
  | 'none';

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
  /** When it arrived here, in ms (this browser's clock: the server's iat may be skewed from it). */
  issuedAt: number;
  /**
   * A token that only lets its holder set up a second factor (claim mfa_enrol): its role requires one
   * and it has none yet. Everything else answers mfa_enrolment_required; once set up, it signs in again.
   */
  mfaEnrol: boolean;
}

/** Token lifetime asked for; the console renews it while the person is active. */
export const TOKEN_TTL_SECONDS = 300;
/** Renew when less than this is left. */
export const RENEW_BEFORE_MS = 60_000;

function claimsOf(token: string): {
  uid: number;
  username: string;
  roles: string[];
  exp: number;
  iat: number;
  mfa_enrol?: boolean;
} {
  const part = token.split('.')[1] ?? '';
  const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(json, (c) => c.charCodeAt(0))));
}

export function sessionOf(token: string): Session {
  const claims = claimsOf(token);
  const rights = (claims.roles.length > 0 ? claims.roles : ['none']) as Role[];
  return {
    token,
    uid: claims.uid,
    username: claims.username,
    role: rights[0]!,
    rights,
    expiresAt: claims.exp * 1000,
    issuedAt: Date.now(),
    mfaEnrol: claims.mfa_enrol === true,
  };
}

export async function signIn(username: string, password: string): Promise<Session> {
  const { access_token } = await api<{ access_token: string }>('POST', '/v1/users/authorize', {
    body: { username, password, ttl: TOKEN_TTL_SECONDS },
  });
  return sessionOf(access_token);
}

/** The ways a second factor may be proven at sign-in. */
export type MfaMethod = 'totp' | 'webauthn' | 'recovery_code';

/** The password was right, and the account has a second factor: the answer's mfa_required, to go on with. */
export interface MfaChallenge {
  mfa_token: string;
  methods: MfaMethod[];
  /** PublicKeyCredentialRequestOptionsJSON, when a passkey or security key may be used. */
  // biome-ignore lint/suspicious/noExplicitAny: the server's options, handed to the browser's WebAuthn as they are
  webauthn?: any;
}

/** The second step a refusal of the password step asks for, if it is mfa_required. */
export function mfaChallengeOf(err: unknown): MfaChallenge | undefined {
  if (!(err instanceof ApiError) || err.code !== 'mfa_required' || typeof err.body?.mfa_token !== 'string') return;
  const methods: MfaMethod[] = Array.isArray(err.body.methods) ? err.body.methods : ['totp', 'recovery_code'];
  return { mfa_token: err.body.mfa_token, methods, webauthn: err.body.webauthn };
}

/** The second step of a sign-in: the mfa_token with an authenticator's code, a recovery code or a passkey's answer. */
export async function signInSecondFactor(
  mfaToken: string,
  // biome-ignore lint/suspicious/noExplicitAny: AuthenticationResponseJSON, as the browser's WebAuthn gave it
  proof: { code: string } | { recovery_code: string } | { webauthn: any },
): Promise<Session> {
  const { access_token } = await api<{ access_token: string }>('POST', '/v1/users/authorize/mfa', {
    body: { mfa_token: mfaToken, ...proof },
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

/**
 * Ends the token on the server too; a failure changes nothing for the person, who is signed
 * out. After an SSO sign-in, the answer says where the identity provider ends its session.
 */
export async function signOut(session: Session): Promise<string | undefined> {
  // A token for setting up a second factor may do little else: the plain logout ends it.
  if (session.mfaEnrol) {
    await api('POST', '/v1/users/logout', { token: session.token }).catch(() => undefined);
    return undefined;
  }
  const answer = await api<{ logout_url?: string }>('POST', '/v1/sso/logout', { token: session.token }).catch(
    () => undefined,
  );
  return answer?.logout_url && /^https?:\/\//.test(answer.logout_url) ? answer.logout_url : undefined;
}

/** Whether the cluster offers SSO sign-in, and requires it of users who are not admins. */
export interface SsoStatus {
  control_plane: boolean;
  enforce_control_plane: boolean;
  login_url: string;
}

export const ssoStatus = () => api<SsoStatus>('GET', '/v1/sso');

/**
 * The last step of an SSO sign-in: the HttpOnly cookie the identity provider's answer left, for
 * a token, once. A sign-in this browser did not start (IdP-initiated) answers sso_confirm until
 * the person confirms the account it names.
 */
export async function ssoExchange(confirm = false): Promise<Session> {
  const { access_token } = await api<{ access_token: string }>('POST', '/v1/sso/exchange', {
    body: { ttl: TOKEN_TTL_SECONDS, ...(confirm && { confirm }) },
    cookie: true,
  });
  return sessionOf(access_token);
}

/** What the console tells a person an SSO step ended with (the codes of the consumer's and the logout's `sso_error`). */
export function ssoProblem(code: string): string {
  switch (code) {
    case 'sso_no_role':
      return 'Your identity provider gives you no role in this cluster. Ask its administrator to assign you one.';
    case 'sso_refused':
      return 'The sign-in through your identity provider was not accepted: it may have taken too long, SSO may be off here, or your email may belong to an account that signs in another way. Try again; if it keeps failing, ask an admin of this cluster.';
    case 'account_locked':
      return 'This account is locked. Ask an admin to unlock it.';
    case 'idp_logout_refused':
      return "You are signed out here, but the identity provider's answer to the sign-out was not accepted: your session there may still be open.";
    case 'idp_logout_unsupported':
      return "Signing out from the identity provider's side is not supported: sign out here.";
    default:
      return 'The sign-in through your identity provider failed. Try again in a moment.';
  }
}

export const mayManageUsers = (s: Session) => s.rights.includes('admin') || s.rights.includes('user_manager');
export const isAdmin = (s: Session) => s.rights.includes('admin');
/** The event log is for every level but db_viewer, none and token_verifier (view_logged_events). */
export const mayViewEvents = (s: Session) =>
  s.rights.some((r) => ['admin', 'user_manager', 'cluster_member', 'cluster_viewer', 'db_member'].includes(r));
