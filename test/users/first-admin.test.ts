import { afterEach, describe, expect, it } from 'vitest';
import { CLI_CONTEXT } from '../../src/audit/audit-log.js';
import { ensureFirstAdmin } from '../../src/users/first-admin.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
afterEach(() => t?.close());

describe('ensureFirstAdmin', () => {
  it('makes admin@tessera.local with a random password that works, once', async () => {
    t = await testTessera();
    const result = await ensureFirstAdmin(t.tessera.users, t.tessera.accounts, {});
    expect(result).toMatchObject({ created: true, username: 'admin@tessera.local' });
    const password = result.created ? result.generatedPassword! : '';
    expect(password).toMatch(/^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)(?=.*[^A-Za-z0-9]).{24}$/);
    const { user } = await t.tessera.auth.checkPassword({ username: 'admin@tessera.local', password }, CLI_CONTEXT);
    expect(user.role).toBe('admin');
    expect(await ensureFirstAdmin(t.tessera.users, t.tessera.accounts, {})).toEqual({ created: false });
    expect(await t.tessera.users.count()).toBe(1);
  });

  it('uses the given credentials and shows no password', async () => {
    t = await testTessera();
    const result = await ensureFirstAdmin(t.tessera.users, t.tessera.accounts, { username: 'root', password: 'given-password' });
    expect(result).toEqual({ created: true, username: 'root', generatedPassword: undefined });
    expect((await t.tessera.auth.checkPassword({ username: 'root', password: 'given-password' }, CLI_CONTEXT)).user.role).toBe('admin');
  });
});

describe('ensureFirstAdmin on nodes starting together', () => {
  it('makes one admin, and the other node carries on', async () => {
    t = await testTessera();
    const results = await Promise.all([1, 2, 3].map(() => ensureFirstAdmin(t.tessera.users, t.tessera.accounts, {})));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(await t.tessera.users.count()).toBe(1);
  });
});
