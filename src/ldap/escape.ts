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
 * of case, no unescaped spaces at either end or around an unescaped ',' '=' and '+'; what is
 * escaped ("Smith\\, John", a trailing "\\ ") is kept as it is. (A directory user's entry,
 * and group DNs in mappings and in the directory's answers, are compared so.)
 */
export function normalizeDn(dn: string): string {
  let out = '';
  let spaces = '';
  let afterSeparator = true;
  for (let i = 0; i < dn.length; i++) {
    const c = dn[i]!;
    if (c === '\\' && i + 1 < dn.length) {
      out += spaces + c + dn[++i];
      [spaces, afterSeparator] = ['', false];
    } else if (c === ',' || c === '=' || c === '+') {
      out += c;
      [spaces, afterSeparator] = ['', true];
    } else if (/\s/.test(c)) {
      if (!afterSeparator) spaces += c;
    } else {
      out += spaces + c;
      [spaces, afterSeparator] = ['', false];
    }
  }
  return out.toLowerCase();
}
