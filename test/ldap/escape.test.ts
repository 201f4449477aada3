import { describe, expect, it } from 'vitest';
import { escapeDnValue, normalizeDn } from '../../src/ldap/escape.js';

describe('normalizeDn', () => {
  it('drops the spaces a directory ignores and folds case', () => {
    expect(normalizeDn(' UID = Bob , OU=People,  DC=example ')).toBe('uid=bob,ou=people,dc=example');
    expect(normalizeDn('cn=a + sn=b,ou=x')).toBe('cn=a+sn=b,ou=x');
  });

  it('keeps what is escaped: a comma inside a value, a space that belongs to it', () => {
    expect(normalizeDn('CN=Smith\\, John,OU=Users')).toBe('cn=smith\\, john,ou=users');
    expect(normalizeDn('uid=bob\\ ,ou=x')).toBe('uid=bob\\ ,ou=x');
    // Two entries a directory tells apart stay apart.
    expect(normalizeDn('uid=bob\\ ,ou=x')).not.toBe(normalizeDn('uid=bob ,ou=x'));
    expect(normalizeDn('CN=Smith\\,John,OU=Users')).not.toBe(normalizeDn('CN=Smith\\, John,OU=Users'));
  });

  it('reads back what escapeDnValue makes of a name with separators', () => {
    const dn = `uid=${escapeDnValue('a,b = c')},ou=people`;
    expect(normalizeDn(dn)).toBe(`uid=${escapeDnValue('a,b = c')},ou=people`.toLowerCase());
  });
});
