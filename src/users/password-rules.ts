import { InvalidRequestError } from '../errors.js';

export const PASSWORD_MIN_LENGTH = 8;
/** Long enough for any passphrase, short enough that nobody sends a megabyte to the hasher. */
export const PASSWORD_MAX_LENGTH = 1024;

/** Passwords are taken exactly as given: never trimmed or normalized. */
export function validateNewPassword(password: string): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) {
    throw new InvalidRequestError(
      `password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`,
      'password_not_complex',
    );
  }
}
