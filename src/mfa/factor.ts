/** The kinds of second factor: an authenticator app (RFC 6238) or a passkey / security key (WebAuthn). */
export const FACTOR_TYPES = ['totp', 'webauthn'] as const;
export type FactorType = (typeof FACTOR_TYPES)[number];

/** A user's second factor as the store keeps it (its secret sealed; a passkey's public key only). */
export interface Factor {
  id: string;
  uid: number;
  type: FactorType;
  name: string;
  /** A TOTP secret that has not yet been proven with a code is no factor yet. */
  confirmed: boolean;
  /** TOTP: the sealed base32 secret. */
  secret: string | null;
  /** TOTP: the last time step accepted (codes of it and before are refused). */
  lastStep: number | null;
  /** WebAuthn: the credential id, its COSE public key (both base64url), its signature counter and transports. */
  credentialId: string | null;
  publicKey: string | null;
  counter: number;
  transports: string[] | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** A factor as the API shows it: never a secret, never a key. */
export interface FactorView {
  factor_id: string;
  type: FactorType;
  name: string;
  created: string;
  last_used?: string;
}

const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

export function toFactorView(factor: Factor): FactorView {
  return {
    factor_id: factor.id,
    type: factor.type,
    name: factor.name,
    created: iso(factor.createdAt),
    ...(factor.lastUsedAt && { last_used: iso(factor.lastUsedAt) }),
  };
}

/** How the second step of a login was proven: the factor's type, or a recovery code. */
export type SecondFactorMethod = FactorType | 'recovery_code';
