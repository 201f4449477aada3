import { InvalidRequestError } from '../errors.js';

export const USERNAME_MAX_LENGTH = 256;

/**
 * The lookup key of a username: NFKC, then lower case (and NFKC again, since lower-casing
 * can produce sequences that compose differently). "Ａdmin", "ADMIN" and "admin" are one user.
 */
export function usernameKey(username: string): string {
  return username.normalize('NFKC').toLowerCase().normalize('NFKC');
}

/**
 * Checks a username chosen for a new user and returns its NFKC form. A colon cannot travel
 * in a Basic header's user-id (RFC 7617), and control characters or outer spaces only
 * cause confusion, so they are refused.
 */
export function validateNewUsername(username: string): string {
  const nfkc = username.normalize('NFKC');
  if (nfkc.length === 0 || nfkc.length > USERNAME_MAX_LENGTH) {
    throw new InvalidRequestError(`username must be 1 to ${USERNAME_MAX_LENGTH} characters`);
  }
  if (nfkc.includes(':')) throw new InvalidRequestError('username must not contain ":"');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(nfkc)) {
    throw new InvalidRequestError('username must not contain control characters');
  }
  if (nfkc.trim() !== nfkc) {
    throw new InvalidRequestError('username must not start or end with white space');
  }
  return nfkc;
}
