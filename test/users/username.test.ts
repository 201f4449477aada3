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

  it('ignores white space as a directory does: at either end, and runs of it', () => {
    const key = usernameKey('ann lee');
    for (const variant of ['ann  lee', ' Ann Lee ', 'ann\u00a0lee', 'ANN \u3000 LEE'])
      expect(usernameKey(variant), JSON.stringify(variant)).toBe(key);
    expect(usernameKey('annlee')).not.toBe(key);
  });
});

describe('validateName and validateEmail', () => {
  it('return the NFKC form', () => {
    expect(validateName('ｏｐｓ')).toBe('ops');
    expect(validateEmail('ｏｐｓ@example.com')).toBe('ops@example.com');
  });

  it.each(['', 'a:b', 'tab\tname', ' padded', 'two  spaces', 'line\u2028separator', 'x'.repeat(257)])(
    'refuse %j',
    (name) => {
      expect(() => validateName(name)).toThrow(InvalidRequestError);
      expect(() => validateEmail(name)).toThrow(InvalidRequestError);
    },
  );

  it('validateEmail refuses what is not an address', () => {
    expect(() => validateEmail('ops')).toThrow('email must be an address');
  });
});
