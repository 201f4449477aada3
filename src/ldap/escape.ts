/**
 * A value put into a DN (RFC 4514 §2.4): the special characters and a leading '#' or space
 * or a trailing space escaped with a backslash, NUL and other control characters as \XX.
 * "*)(uid=*" stays one attribute value and never becomes another RDN.
 */
export function escapeDnValue(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!;
    const code = ch.charCodeAt(0);
    if (code < 0x20 || code === 0x7f) out += `\\${code.toString(16).padStart(2, '0')}`;
    else if (',+"\\<>;='.includes(ch)) out += `\\${ch}`;
    else if ((i === 0 && (ch === '#' || ch === ' ')) || (i === value.length - 1 && ch === ' ')) out += `\\${ch}`;
    else out += ch;
  }
  return out;
}

/**
 * A value put into a search filter (RFC 4515 §3): '*', '(', ')', '\' and NUL as \XX, so that
 * a user name can never add a wildcard or a clause to the filter.
 */
export function escapeFilterValue(value: string): string {
  return value.replace(/[*()\\\u0000]/g, (ch) => `\\${ch.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * A DN compared as a directory would, near enough: attribute names and values regardless
 * of case, no spaces around ',' '=' and '+'. (Group DNs in mappings and in the directory's
 * answers are compared so.)
 */
export function normalizeDn(dn: string): string {
  return dn
    .trim()
    .replace(/\s*([,=+])\s*/g, '$1')
    .toLowerCase();
}
