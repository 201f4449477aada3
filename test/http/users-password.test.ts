import { createSigner } from 'fast-jwt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, login } from '../helpers/http.js';
import { decodeJwt, type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
let uid: number;
const authorize = (username: string, password: string) =>
  call(t, 'POST', '/v1/users/authorize', { body: { username, password } });

beforeEach(async () => {
  t = await testTessera();
  await t.addUser('root', 'root-password', 'admin');
  uid = await t.addUser('frank', 'frank-password-1', 'db_viewer');
});
afterEach(() => t.close());

describe('PUT /v1/users/password', () => {
  it('replaces all passwords of a user who gives the current one, with no header at all', async () => {
    const res = await call(t, 'PUT', '/v1/users/password', {
      body: { username: 'frank', old_password: 'frank-password-1', new_password: 'frank-password-2' },
    });
    expect(res.status).toBe(200);
    expect((await authorize('frank', 'frank-password-1')).status).toBe(401);
    expect((await authorize('frank', 'frank-password-2')).status).toBe(200);
  });

  it('is the way out of password_expired', async () => {
    await t.tessera.users.expirePassword(uid, new Date(t.tessera.clock()));
    expect((await authorize('frank', 'frank-password-1')).body.error_code).toBe('password_expired');
    const res = await call(t, 'PUT', '/v1/users/password', {
      body: { username: 'frank', old_password: 'frank-password-1', new_password: 'frank-password-2' },
    });
    expect(res.status).toBe(200);
    expect((await authorize('frank', 'frank-password-2')).status).toBe(200);
  });

  it('refuses a wrong current password (401) and a reused one (400)', async () => {
    const wrong = await call(t, 'PUT', '/v1/users/password', {
      body: { username: 'frank', old_password: 'nope-nope-nope', new_password: 'frank-password-2' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error_code).toBe('invalid_credentials');
    const same = await call(t, 'PUT', '/v1/users/password', {
      body: { username: 'frank', old_password: 'frank-password-1', new_password: 'frank-password-1' },
    });
    expect(same.status).toBe(400);
    expect(same.body.error_code).toBe('new_password_same_as_current');
  });

  it('applies the password policy (400 password_not_complex)', async () => {
    const res = await call(t, 'PUT', '/v1/users/password', {
      body: { username: 'frank', old_password: 'frank-password-1', new_password: 'qwerty123' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe('password_not_complex');
  });

  it('lets an admin reset anyone without the old password; others get 403, unknown names 404', async () => {
    const root = await login(t, 'root', 'root-password');
    expect(
      (
        await call(t, 'PUT', '/v1/users/password', {
          auth: root,
          body: { username: 'frank', new_password: 'reset-by-admin-1' },
        })
      ).status,
    ).toBe(200);
    expect((await authorize('frank', 'reset-by-admin-1')).status).toBe(200);

    const frank = await login(t, 'frank', 'reset-by-admin-1');
    const other = await call(t, 'PUT', '/v1/users/password', {
      auth: frank,
      body: { username: 'root', new_password: 'hijacked-pass-1' },
    });
    expect(other.status).toBe(403);
    expect(other.body.error_code).toBe('unauthorized_action');

    const missing = await call(t, 'PUT', '/v1/users/password', {
      auth: root,
      body: { username: 'ghost', new_password: 'whatever-pass-1' },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error_code).toBe('user_not_exist');
  });

  it('takes the user from the token when the body names nobody', async () => {
    const frank = await login(t, 'frank', 'frank-password-1');
    const res = await call(t, 'PUT', '/v1/users/password', {
      auth: frank,
      body: { old_password: 'frank-password-1', new_password: 'frank-password-2' },
    });
    expect(res.status).toBe(200);
    expect((await call(t, 'PUT', '/v1/users/password', { body: { new_password: 'frank-password-3' } })).status).toBe(
      401,
    );
  });
});

describe("one's own password with a token: the docs' body, new_password alone, within five minutes of the login", () => {
  /** A login whose token outlives the five minutes (the default ttl is five minutes itself). */
  const longLogin = async (password: string) => {
    const res = await call(t, 'POST', '/v1/users/authorize', { body: { username: 'frank', password, ttl: 3600 } });
    expect(res.status).toBe(200);
    return `JWT ${res.body.access_token}`;
  };
  // requests/users/password.md's example, without the username ("if missing, default to the authenticated user").
  const docsBody = { new_password: 'the new (single) password' };

  it('a token of a fresh login changes its own password with new_password alone; the new one logs in', async () => {
    const token = await login(t, 'frank', 'frank-password-1');
    t.advance(299);
    const res = await call(t, 'PUT', '/v1/users/password', { auth: token, body: docsBody });
    expect([res.status, res.body]).toEqual([200, {}]);
    expect((await authorize('frank', 'the new (single) password')).status).toBe(200);
    expect((await authorize('frank', 'frank-password-1')).status).toBe(401);
    // POST (a second password) too.
    const again = await login(t, 'frank', 'the new (single) password');
    const add = await call(t, 'POST', '/v1/users/password', {
      auth: again,
      body: { new_password: 'a password to add' },
    });
    expect(add.status).toBe(200);
    expect((await authorize('frank', 'a password to add')).status).toBe(200);
    // Added on the token's recent login alone: its tokens end (one taken from frank adds no way in unseen).
    expect((await call(t, 'GET', '/v1/users/permissions', { auth: again })).status).toBe(401);
  });

  it('an old_password given with a fresh token is checked all the same', async () => {
    const token = await login(t, 'frank', 'frank-password-1');
    const wrong = await call(t, 'PUT', '/v1/users/password', {
      auth: token,
      body: { ...docsBody, old_password: 'nope-nope-nope' },
    });
    expect([wrong.status, wrong.body.error_code]).toEqual([401, 'invalid_credentials']);
    expect((await authorize('frank', 'frank-password-1')).status).toBe(200);
  });

  it('a token whose login is over five minutes old gets 400 saying to log in again or send old_password; nothing changes', async () => {
    const token = await longLogin('frank-password-1');
    t.advance(301);
    for (const method of ['PUT', 'POST'] as const) {
      const res = await call(t, method, '/v1/users/password', { auth: token, body: docsBody });
      expect([method, res.status, res.body.error_code]).toEqual([method, 400, 'invalid_request']);
      expect(res.body.message).toContain('log in again');
      expect(res.body.message).toContain('old_password');
    }
    expect((await authorize('frank', 'the new (single) password')).status).toBe(401);
    expect((await authorize('frank', 'frank-password-1')).status).toBe(200);
    // The token still stands (nothing was ended), and with old_password it still changes the password.
    const withOld = await call(t, 'PUT', '/v1/users/password', {
      auth: token,
      body: { ...docsBody, old_password: 'frank-password-1' },
    });
    expect(withOld.status).toBe(200);
    expect((await authorize('frank', 'the new (single) password')).status).toBe(200);
  });

  it('a refresh keeps its session, and so the age of its login', async () => {
    const token = await longLogin('frank-password-1');
    t.advance(240);
    const refreshed = await call(t, 'POST', '/v1/users/refresh_jwt', { auth: token, body: { ttl: 3600 } });
    expect(refreshed.status).toBe(200);
    const renewed = `JWT ${refreshed.body.access_token}`;
    t.advance(120); // two minutes after the refresh, six after the login
    const res = await call(t, 'PUT', '/v1/users/password', { auth: renewed, body: docsBody });
    expect([res.status, res.body.error_code]).toEqual([400, 'invalid_request']);
    expect(res.body.message).toContain('log in again');
    expect((await authorize('frank', 'frank-password-1')).status).toBe(200);
  });

  it('a token issued before sessions, refreshed, is as old as it was: its session begins at its issue', async () => {
    // What a release before sessions issued: a token of this key ring with no sid.
    const { sid, iat, ...claims } = decodeJwt((await longLogin('frank-password-1')).slice(4)).payload;
    expect(sid).toBeDefined();
    const { kid, alg, privatePem } = t.tessera.keys.signingKey();
    const sign = createSigner({ key: privatePem, algorithm: alg as 'ES256', kid, clockTimestamp: Number(iat) * 1000 });
    const sidless = sign(claims);
    t.advance(360);
    const refreshed = await call(t, 'POST', '/v1/users/refresh_jwt', { auth: `JWT ${sidless}`, body: {} });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    const res = await call(t, 'PUT', '/v1/users/password', {
      auth: `JWT ${refreshed.body.access_token}`,
      body: docsBody,
    });
    expect([res.status, res.body.error_code]).toEqual([400, 'invalid_request']);
    expect((await authorize('frank', 'frank-password-1')).status).toBe(200);
  });

  it("an admin's token of any age changes another user's password, as before", async () => {
    const res = await call(t, 'POST', '/v1/users/authorize', {
      body: { username: 'root', password: 'root-password', ttl: 3600 },
    });
    t.advance(600);
    const reset = await call(t, 'PUT', '/v1/users/password', {
      auth: `JWT ${res.body.access_token}`,
      body: { username: 'frank', new_password: 'the new (single) password' },
    });
    expect(reset.status).toBe(200);
    expect((await authorize('frank', 'the new (single) password')).status).toBe(200);
  });
});

describe('POST and DELETE /v1/users/password: rotation', () => {
  it('adds a second password, both work, then the old one is deleted', async () => {
    const add = await call(t, 'POST', '/v1/users/password', {
      body: { username: 'frank', old_password: 'frank-password-1', new_password: 'frank-password-2' },
    });
    expect(add.status).toBe(200);
    expect((await authorize('frank', 'frank-password-1')).status).toBe(200);
    expect((await authorize('frank', 'frank-password-2')).status).toBe(200);

    const third = await call(t, 'POST', '/v1/users/password', {
      body: { username: 'frank', old_password: 'frank-password-1', new_password: 'frank-password-3' },
    });
    expect(third.body.error_code).toBe('too_many_passwords');

    const del = await call(t, 'DELETE', '/v1/users/password', {
      body: { username: 'frank', old_password: 'frank-password-1' },
    });
    expect(del.status).toBe(200);
    expect((await authorize('frank', 'frank-password-1')).status).toBe(401);
    expect((await authorize('frank', 'frank-password-2')).status).toBe(200);
  });

  it('never deletes the last password', async () => {
    const res = await call(t, 'DELETE', '/v1/users/password', {
      body: { username: 'frank', old_password: 'frank-password-1' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe('cannot_delete_last_password');
    expect((await authorize('frank', 'frank-password-1')).status).toBe(200);
  });
});

describe("another user's passwords (the product: only an admin rotates another user's)", () => {
  it("lets only an admin add, replace or delete another user's password here; a user_manager uses PUT /v1/users/{uid}", async () => {
    await t.addUser('manny', 'manny-password-1', 'user_manager');
    const manny = t.basic('manny', 'manny-password-1');
    const frankUid = (await t.tessera.users.findByUsername('frank'))!.uid;
    for (const [method, body] of [
      ['PUT', { username: 'frank', new_password: 'hijacked-pass-1' }],
      ['POST', { username: 'frank', new_password: 'backdoor-pass-1' }],
      ['DELETE', { username: 'frank', old_password: 'frank-password-1' }],
    ] as const) {
      const res = await call(t, method, '/v1/users/password', { auth: manny, body });
      expect([res.status, res.body.error_code], method).toEqual([403, 'unauthorized_action']);
    }
    expect((await login(t, 'frank', 'frank-password-1')).length).toBeGreaterThan(0);
    // The product's own way for a user_manager: PUT /v1/users/{uid} with a password.
    expect(
      (await call(t, 'PUT', `/v1/users/${frankUid}`, { auth: manny, body: { password: 'set-by-manager-1' } })).status,
    ).toBe(200);
  });

  it('tells no one without the right to see users whether a name exists', async () => {
    await t.addUser('nosy', 'nosy-password-1', 'db_viewer');
    const nosy = t.basic('nosy', 'nosy-password-1');
    const known = await call(t, 'PUT', '/v1/users/password', {
      auth: nosy,
      body: { username: 'frank', new_password: 'whatever-pass-1' },
    });
    const unknown = await call(t, 'PUT', '/v1/users/password', {
      auth: nosy,
      body: { username: 'nobody-at-all', new_password: 'whatever-pass-1' },
    });
    expect([unknown.status, unknown.body]).toEqual([known.status, known.body]);
  });

  it("is no oracle of another user's passwords: the last one is refused whatever is guessed, and each guess counts toward the lockout", async () => {
    const admin = await login(t, 'root', 'root-password');
    const remove = (old_password: string) =>
      call(t, 'DELETE', '/v1/users/password', { auth: admin, body: { username: 'frank', old_password } });
    // One password: the same answer for a right and a wrong guess.
    for (const guess of ['frank-password-1', 'wrong-guess'])
      expect((await remove(guess)).body.error_code, guess).toBe('cannot_delete_last_password');
    // Two: each wrong guess is a failed login of frank's; at the threshold (5) the account locks, and the right one tells nothing more.
    await call(t, 'POST', '/v1/users/password', {
      auth: admin,
      body: { username: 'frank', new_password: 'Frank-second-2' },
    });
    for (let i = 0; i < 5; i++) expect((await remove(`wrong-${i}`)).body.error_code).toBe('invalid_request');
    expect((await remove('frank-password-1')).body.error_code).toBe('account_locked');
    expect((await authorize('frank', 'Frank-second-2')).body.error_code).toBe('account_locked');
  });

  it("ends the user's tokens when someone else gives it a password, also a second one", async () => {
    const token = await login(t, 'frank', 'frank-password-1');
    const frankUid = (await t.tessera.users.findByUsername('frank'))!.uid;
    expect(
      (
        await call(t, 'POST', '/v1/users/password', {
          auth: t.basic('root', 'root-password'),
          body: { username: 'frank', new_password: 'second-by-admin-1' },
        })
      ).status,
    ).toBe(200);
    expect((await call(t, 'GET', `/v1/users/${frankUid}`, { auth: token })).status).toBe(401);
    expect((await call(t, 'POST', '/v1/users/refresh_jwt', { auth: token, body: {} })).status).toBe(401);
    // A second password it adds itself does not sign it out.
    expect(
      (
        await call(t, 'DELETE', '/v1/users/password', {
          auth: t.basic('frank', 'frank-password-1'),
          body: { old_password: 'second-by-admin-1' },
        })
      ).status,
    ).toBe(200);
    const own = await login(t, 'frank', 'frank-password-1');
    expect(
      (
        await call(t, 'POST', '/v1/users/password', {
          auth: t.basic('frank', 'frank-password-1'),
          body: { new_password: 'frank-rotation-2' },
        })
      ).status,
    ).toBe(200);
    expect((await call(t, 'GET', `/v1/users/${frankUid}`, { auth: own })).status).toBe(200);
  });
});
