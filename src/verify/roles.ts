import type { TesseraClaims } from './verifier.js';

/** The one error shape of Tessera, also in the services that verify its tokens. */
export interface ErrorBody {
  error_code: string;
  message: string;
}

export const BEARER_CHALLENGE = 'Bearer realm="tessera"';

/** The token of an `Authorization: Bearer <t>` or `JWT <t>` header, or undefined. */
export function tokenOf(header: string | undefined): string | undefined {
  const match = /^(?:bearer|jwt)\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

/** Whether the claims hold one of `roles`. */
export function hasRole(claims: TesseraClaims, roles: readonly string[]): boolean {
  return claims.roles.some((r) => roles.includes(r));
}

export const UNAUTHORIZED: ErrorBody = {
  error_code: 'invalid_token',
  message: 'Present a valid Tessera token as "Authorization: Bearer <token>"',
};
export const FORBIDDEN: ErrorBody = { error_code: 'forbidden', message: 'Your role may not do this' };
export const UNAVAILABLE: ErrorBody = {
  error_code: 'verifier_unavailable',
  message: 'Tokens cannot be checked now; try again',
};
