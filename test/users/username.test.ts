import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../src/errors.js';
import { usernameKey, validateNewUsername } from '../../src/users/username.js';

describe('usernameKey', () => {
  it('folds case and compatibility forms to one key', () => {
    const key = usernameKey('admin');
    for (const variant of ['ADMIN', 'Admin', 'ａｄｍｉｎ', 'ＡＤＭＩＮ']) expect(usernameKey(variant)).toBe(key);
  });

  it('composes decomposed accents', () => {
    expect(usernameKey('e\u0301mile')).toBe(usernameKey('Émile'));
  });
});

describe('validateNewUsername', () => {
  it('returns the NFKC form', () => {
    expect(validateNewUsername('ｏｐｓ')).toBe('ops');
  });

  it.each(['', 'a:b', 'tab\tname', ' padded', 'x'.repeat(257)])('refuses %j', (name) => {
    expect(() => validateNewUsername(name)).toThrow(InvalidRequestError);
  });
});
