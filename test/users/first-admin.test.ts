import { afterEach, describe, expect, it } from 'vitest';
import { CLI_CONTEXT } from '../../src/audit/audit-log.js';
import { ensureFirstAdmin } from '../../src/users/first-admin.js';
import { KyselyUnshownPasswordMark } from '../../src/users/unshown-password-mark.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
afterEach(() => t?.close());
const mark = () => new KyselyUnshownPasswordMark(t.tessera.db);

describe('ensureFirstAdmin', () => {
  it('makes admin@tessera.local with a random password that works, once', async () => {
    t = await testTessera();
    const result = await ensureFirstAdmin(t.tessera.users, t.tessera.userCreation, mark(), {});
    expect(result).toMatchObject({ created: true, username: 'admin@tessera.local' });
    const password = result.created ? result.generatedPassword! : '';
    expect(password).toMatch(/^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)(?=.*[^A-Za-z0-9]).{24}$/);
    const user = await t.tessera.chain.confirmPassword('admin@tessera.local', password, CLI_CONTEXT);
    expect([user.roleUids, user.rights]).toEqual([[1], ['admin']]);
    if (result.created) await result.shown();
    expect(await ensureFirstAdmin(t.tessera.users, t.tessera.userCreation, mark(), {})).toEqual({ created: false });
    expect(await t.tessera.users.count()).toBe(1);
  });

  it('names an admin whose generated password was never shown, until it logs in', async () => {
    t = await testTessera();
    const result = await ensureFirstAdmin(t.tessera.users, t.tessera.userCreation, mark(), {}); // and never shown
    const again = await ensureFirstAdmin(t.tessera.users, t.tessera.userCreation, mark(), {});
    expect(again).toEqual({ created: false, unshownPasswordOf: 'admin@tessera.local' });
    const password = result.created ? result.generatedPassword! : '';
    await t.tessera.logins.authorize(
      { kind: 'password', username: 'admin@tessera.local', password },
      3600,
      CLI_CONTEXT,
    );
    expect(await ensureFirstAdmin(t.tessera.users, t.tessera.userCreation, mark(), {})).toEqual({ created: false });
    expect(await mark().get()).toBeUndefined();
  });

  it('forgets the unshown password once the admin has another one', async () => {
    t = await testTessera();
    await ensureFirstAdmin(t.tessera.users, t.tessera.userCreation, mark(), {});
    const admin = (await t.tessera.users.findByUsername('admin@tessera.local'))!;
    t.advance(1);
    await t.tessera.passwordChanges.replace(null, admin, 'a-new-admin-password', CLI_CONTEXT);
    expect(await ensureFirstAdmin(t.tessera.users, t.tessera.userCreation, mark(), {})).toEqual({ created: false });
  });

  it('uses the given credentials and shows no password', async () => {
    t = await testTessera();
    const result = await ensureFirstAdmin(t.tessera.users, t.tessera.userCreation, mark(), {
      username: 'root',
      password: 'given-password',
    });
    expect(result).toMatchObject({ created: true, username: 'root' });
    expect(result.created && result.generatedPassword).toBeUndefined();
    expect(await mark().get()).toBeUndefined();
    expect((await t.tessera.chain.confirmPassword('root', 'given-password', CLI_CONTEXT)).roleUids).toEqual([1]);
  });
});

describe('ensureFirstAdmin on nodes starting together', () => {
  it('makes one admin, and the other node carries on', async () => {
    t = await testTessera();
    const results = await Promise.all(
      [1, 2, 3].map(() => ensureFirstAdmin(t.tessera.users, t.tessera.userCreation, mark(), {})),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const made = results.find((r) => r.created)!;
    expect(await mark().get()).toMatchObject({ username: 'admin@tessera.local' });
    if (made.created) await made.shown();
    expect(await mark().get()).toBeUndefined();
    expect(await t.tessera.users.count()).toBe(1);
  });
});
