import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../src/policy/policy.js';
import { generatePassword } from '../../src/users/generate-password.js';
import { checkNewPassword } from '../../src/users/password-rules.js';

describe('generatePassword', () => {
  it('uses only characters a shell leaves alone, with at least 128 bits of entropy', () => {
    const passwords = Array.from({ length: 2000 }, () => generatePassword());
    for (const p of passwords) expect(p).toMatch(/^[A-Za-z0-9._-]{24}$/);
    const alphabet = new Set(passwords.join(''));
    expect(24 * Math.log2(alphabet.size)).toBeGreaterThanOrEqual(128 + 8); // room for the class rules
    expect(new Set(passwords).size).toBe(passwords.length);
  });

  it('meets the strictest policy', async () => {
    const strict = { ...DEFAULT_POLICY, password_complexity: true };
    for (let i = 0; i < 50; i++)
      await expect(
        checkNewPassword(generatePassword(), { name: null, email: 'admin@tessera.local' }, strict),
      ).resolves.toBeUndefined();
  });
});
