import { InvalidRequestError } from '../errors.js';

export const USERNAME_MAX_LENGTH = 256;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** The product's email pattern for a user's email (objects/user.md, its OpenAPI document): ASCII letters, digits and _.+- before the @. */
const USER_EMAIL = /^[a-zA-Z0-9_.+-]+@[a-zA-Z0-9-]+\.[a-zA-Z0-9.-]+$/;
/** The product's name pattern: printable ASCII but " & < > (and ":", which cannot travel in Basic credentials). */
const USER_NAME = /^[ !#-%'-9;=?-~]+$/;

/**
 * A login as a directory matches it (RFC 4518's insignificant space handling): NFKC, every
 * run of white space one space, none at either end. Case is kept: this is how a name is shown.
 */
export function canonicalName(login: string): string {
  return login.normalize('NFKC').replace(/\s+/g, ' ').trim();
}

/**
 * The lookup key of a login (a name, an email, a directory name): its canonical form, lower
 * case (and NFKC again, since lower-casing can produce sequences that compose differently).
 * "Ａdmin", " ADMIN", "admin " and "admin" are one account; so are "ann  lee" and "Ann Lee".
 */
export function usernameKey(username: string): string {
  return canonicalName(username).toLowerCase().normalize('NFKC');
}

/** The lookup key of a role's name: its canonical form with its case (role names compare with their case, as the product's). */
export function roleNameKey(name: string): string {
  return canonicalName(name);
}

export function isEmail(value: string): boolean {
  // No control character either (a NUL is a 500 of PostgreSQL's text, not an address).
  return EMAIL.test(value) && !/[\u0000-\u001f\u007f]/.test(value);
}

/**
 * Checks a login chosen for a user (its name) and returns its NFKC form. A colon cannot
 * travel in a Basic header's user-id (RFC 7617), and control characters, outer spaces or
 * runs of spaces only cause confusion (they log in as the same account), so they are refused.
 */
export function validateName(name: string, field = 'name'): string {
  const nfkc = name.normalize('NFKC');
  if (nfkc.length === 0 || nfkc.length > USERNAME_MAX_LENGTH) {
    throw new InvalidRequestError(`${field} must be 1 to ${USERNAME_MAX_LENGTH} characters`);
  }
  if (nfkc.includes(':')) throw new InvalidRequestError(`${field} must not contain ":"`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(nfkc)) {
    throw new InvalidRequestError(`${field} must not contain control characters`);
  }
  if (nfkc.trim() !== nfkc) {
    throw new InvalidRequestError(`${field} must not start or end with white space`);
  }
  // What a directory would read as another spelling of the same name is no name of its own.
  if (canonicalName(nfkc) !== nfkc) {
    throw new InvalidRequestError(`${field} must not hold white space other than single spaces`);
  }
  return nfkc;
}

/**
 * Checks a name chosen for a user: a login (validateName), in the product's characters only —
 * no letters of other scripts, no zero-width or right-to-left marks that make one name look
 * like another on screen.
 */
export function validateUserName(name: string): string {
  const nfkc = validateName(name);
  if (!USER_NAME.test(nfkc))
    throw new InvalidRequestError('name may hold printable ASCII characters only, without " & < > or ":"');
  return nfkc;
}

/** Checks an email given for a user: a login as a name is, and shaped like an address (ASCII, as the product). */
export function validateEmail(email: string): string {
  const nfkc = validateName(email, 'email');
  if (!USER_EMAIL.test(nfkc))
    throw new InvalidRequestError(
      'email must be an address like ops@example.com (ASCII letters, digits and _.+- before the @)',
    );
  return nfkc;
}

/** Scripts whose letters look like one another's (а and a, Ο and O): one name holds letters of one of them at most. */
const LOOKALIKE_SCRIPTS = [/\p{Script=Latin}/u, /\p{Script=Cyrillic}/u, /\p{Script=Greek}/u];

/**
 * Checks a role's name: a name as validateName checks it, in any script (a role is no login),
 * but nothing that makes it look like another role on screen — no invisible or
 * direction-changing characters ("Admin\u200b"), no Latin, Cyrillic and Greek letters mixed ("Аdmin").
 */
export function validateRoleName(name: string): string {
  const nfkc = validateName(name);
  if (/[\p{Default_Ignorable_Code_Point}\p{Cf}]/u.test(nfkc))
    throw new InvalidRequestError('name must not hold invisible or direction-changing characters');
  if (LOOKALIKE_SCRIPTS.filter((script) => script.test(nfkc)).length > 1) {
    throw new InvalidRequestError(
      'name must not mix Latin, Cyrillic and Greek letters (they make one name look like another)',
    );
  }
  return nfkc;
}
