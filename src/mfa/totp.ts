import { Secret, TOTP } from 'otpauth';

/** RFC 6238 as every authenticator app reads an otpauth:// URL by default: HMAC-SHA-1, 6 digits, 30 s. */
const PERIOD_SECONDS = 30;
const DIGITS = 6;
/** One step either side of now (RFC 6238 §5.2: a code typed as it changed, a clock a little off). */
const WINDOW = 1;

const totpOf = (base32: string, label = '', issuer = '') =>
  new TOTP({
    issuer,
    label,
    secret: Secret.fromBase32(base32),
    algorithm: 'SHA1',
    digits: DIGITS,
    period: PERIOD_SECONDS,
  });

/** A new secret: 160 random bits (RFC 4226 §4's recommended length), base32 as authenticator apps take it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The otpauth:// URL an authenticator app scans: the issuer and the account it shows, the secret. */
export function otpauthUrl(base32: string, account: string, issuer: string): string {
  return totpOf(base32, account, issuer).toString();
}

/** The time step of a moment: the counter a code is made from. */
export const stepAt = (nowMs: number) => Math.floor(nowMs / 1000 / PERIOD_SECONDS);

/** A code as typed: its digits, spaces and dashes dropped; undefined when it cannot be a code. */
export function typedCode(code: string): string | undefined {
  const digits = code.replace(/[\s-]/g, '');
  return /^\d{6}$/.test(digits) ? digits : undefined;
}

/**
 * The time step whose code this is, within one step of now; undefined when it is no code of
 * the secret then. The comparison is the library's (constant time).
 */
export function matchedStep(base32: string, code: string, nowMs: number): number | undefined {
  const typed = typedCode(code);
  if (!typed) return undefined;
  const delta = totpOf(base32).validate({ token: typed, timestamp: nowMs, window: WINDOW });
  return delta === null ? undefined : stepAt(nowMs) + delta;
}

/** The code of a secret at a moment (tests, and the console's examples). */
export function codeAt(base32: string, nowMs: number): string {
  return totpOf(base32).generate({ timestamp: nowMs });
}
