import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../src/errors.js';
import { usernameKey, validateEmail, validateName } from '../../src/users/username.js';

describe('usernameKey', () => {
  it('folds case and compatibility forms to one key', () => {
    const key = usernameKey('admin');
    for (const variant of ['ADMIN', 'Admin', 'ａｄｍｉｎ', 'ＡＤＭＩＮ']) expect(usernameKey(variant)).toBe(key);
  });

  it('composes decomposed accents', () => {
    expect(usernameKey('e\u0301mile')).toBe(usernameKey('Émile'));
  });
});

describe('validateName and validateEmail', () => {
  it('return the NFKC form', () => {
    expect(validateName('ｏｐｓ')).toBe('ops');
    expect(validateEmail('ｏｐｓ@example.com')).toBe('ops@example.com');
  });

  it.each(['', 'a:b', 'tab\tname', ' padded', 'x'.repeat(257)])('refuse %j', (name) => {
    expect(() => validateName(name)).toThrow(InvalidRequestError);
    expect(() => validateEmail(name)).toThrow(InvalidRequestError);
  });

  it('validateEmail refuses what is not an address', () => {
    expect(() => validateEmail('ops')).toThrow('email must be an address');
  });
});
