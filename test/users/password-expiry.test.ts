import { describe, expect, it } from 'vitest';
import type { Policy } from '../../src/policy/policy.js';
import { isPasswordExpired, realmOf, type User } from '../../src/users/user.js';

const DAY = 86_400_000;
const now = new Date('2026-11-25T12:00:00Z');
const policy = { password_expiration_duration: 30 } as Policy;
const made = (authMethod: User['authMethod'], inDirectory = false) =>
  ({
    authMethod,
    realm: realmOf(inDirectory, authMethod),
    passwordExpiresAt: null,
    passwordIssueDate: new Date(now.getTime() - 31 * DAY),
  }) as User;

describe('password expiry', () => {
  it('ends a password kept here after password_expiration_duration days, and nothing of users who have none', () => {
    expect(isPasswordExpired(made('regular'), policy, now)).toBe(true);
    expect(isPasswordExpired(made('regular'), { ...policy, password_expiration_duration: 0 }, now)).toBe(false);
    // A certificate or SSO user has no password: its "issue date" is when it was made, and must not end its sessions.
    expect(isPasswordExpired(made('certificate'), policy, now)).toBe(false);
    expect(isPasswordExpired(made('sso'), policy, now)).toBe(false);
    expect(isPasswordExpired(made('regular', true), policy, now)).toBe(false);
  });
});
