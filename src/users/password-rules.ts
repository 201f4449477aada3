import { PasswordNotComplexError } from '../errors.js';
import type { Policy } from '../policy/policy.js';
import { usernameKey } from './username.js';

/** Long enough for any passphrase, short enough that nobody sends a megabyte to the hasher. */
export const PASSWORD_MAX_LENGTH = 1024;

let common: Promise<Set<string>> | undefined;

/** The ~49,000 most common passwords, as shipped offline by @zxcvbn-ts/language-common. */
function commonPasswords(): Promise<Set<string>> {
  common ??= import('@zxcvbn-ts/language-common').then(
    (m) => new Set((m.dictionary as Record<string, string[]>)['passwords-common']),
  );
  return common;
}

/** The rules checkNewPassword applies, in words, for people choosing a password. */
export function passwordRulesInWords(policy: Policy): string[] {
  const rules = [`at least ${policy.password_min_length} characters`, 'not one of the most common passwords'];
  if (!policy.password_complexity) return rules;
  return [
    ...rules,
    'an upper-case letter, a lower-case letter, a digit and a special character',
    "not containing the user's name, its email or the email reversed",
    'no character more than 3 times in a row',
  ];
}

/**
 * Checks a new password against the policy and the common-password list. Passwords are
 * taken exactly as given: never trimmed or normalized.
 */
export async function checkNewPassword(
  password: string,
  user: { name: string | null; email: string | null },
  policy: Policy,
): Promise<void> {
  const chars = [...password];
  const fail = (why: string) => {
    throw new PasswordNotComplexError(`The password ${why}`);
  };
  if (chars.length < policy.password_min_length) fail(`must have at least ${policy.password_min_length} characters`);
  if (chars.length > PASSWORD_MAX_LENGTH) fail(`must have at most ${PASSWORD_MAX_LENGTH} characters`);
  if ((await commonPasswords()).has(password.toLowerCase())) fail('is one of the most common passwords');
  if (!policy.password_complexity) return;
  if (!/\p{Lu}/u.test(password)) fail('must contain an upper-case letter');
  if (!/\p{Ll}/u.test(password)) fail('must contain a lower-case letter');
  if (!/\p{Nd}/u.test(password)) fail('must contain a digit');
  if (!/[^\p{L}\p{Nd}]/u.test(password)) fail('must contain a special character');
  const key = usernameKey(password);
  if (user.name && key.includes(usernameKey(user.name))) fail('must not contain the username');
  // The product's rule: the email, and the email reversed (password-complexity-rules.md).
  if (
    user.email &&
    (key.includes(usernameKey(user.email)) || key.includes(usernameKey([...user.email].reverse().join(''))))
  ) {
    fail("must not contain the user's email or the email reversed");
  }
  if (/(.)\1{3}/u.test(password)) fail('must not repeat a character more than 3 times in a row');
}
