import { createHash, randomBytes } from 'node:crypto';

/** How many recovery codes a user gets at a time. */
export const RECOVERY_CODES = 10;
const ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789'; // 32 characters, none that reads as another (no l, o, 0, 1)
const LENGTH = 12; // 60 random bits

/** Ten new codes, `xxxx-xxxx-xxxx`: shown once, kept as digests. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODES }, () => {
    const bytes = randomBytes(LENGTH);
    const code = Array.from(bytes, (b) => ALPHABET[b & 31]).join('');
    return `${code.slice(0, 4)}-${code.slice(4, 8)}-${code.slice(8)}`;
  });
}

/** The digest a code is kept as, from the code as typed (any case, with or without dashes and spaces). */
export function recoveryCodeHash(typed: string): string {
  const code = typed.toLowerCase().replace(/[\s-]/g, '');
  return createHash('sha256').update(code).digest('hex');
}
