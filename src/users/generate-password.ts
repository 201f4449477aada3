import { randomInt } from 'node:crypto';

const LOWER = 'abcdefghijkmnopqrstuvwxyz';
const UPPER = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const DIGITS = '23456789';
/** Safe in every shell, quoted or not (no `!` history expansion, no `$`, no quotes). */
const SPECIAL = '-_.';

/**
 * A random password from a CSPRNG (about 5.9 bits a character, some 140 bits in all) that
 * has every character class and no runs, so it meets any complexity policy. Look-alike
 * characters are left out.
 */
export function generatePassword(length = 24): string {
  const all = LOWER + UPPER + DIGITS + SPECIAL;
  for (;;) {
    const chars = [LOWER, UPPER, DIGITS, SPECIAL].map(pick);
    while (chars.length < length) chars.push(pick(all));
    for (let i = chars.length - 1; i > 0; i--) {
      const j = randomInt(i + 1);
      [chars[i], chars[j]] = [chars[j]!, chars[i]!];
    }
    const password = chars.join('');
    if (!/(.)\1{3}/.test(password)) return password;
  }
}

function pick(alphabet: string): string {
  return alphabet[randomInt(alphabet.length)]!;
}
