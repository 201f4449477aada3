import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, login } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
let admin: string;
beforeEach(async () => {
  t = await testTessera();
  await t.addUser('root', 'root-password', 'admin');
  admin = await login(t, 'root', 'root-password');
});
afterEach(() => t.close());

const create = (body: unknown, auth = admin) => call(t, 'POST', '/v1/users', { auth, body });

describe("the product's user object", () => {
  it("makes a user with only a name, as Vault's plugin does, who logs in with it", async () => {
    const res = await create({
      name: 'vault-root',
      password: 'vault-password-1',
      role_uids: [1],
      email_alerts: false,
      auth_method: 'regular',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'vault-root',
      email: '',
      role: 'admin',
      role_uids: [1],
      email_alerts: false,
      auth_method: 'regular',
    });
    expect(res.body.last_login).toBeUndefined();
    expect(await login(t, 'vault-root', 'vault-password-1')).toMatch(/^JWT /);
    const user = (await call(t, 'GET', `/v1/users/${res.body.uid}`, { auth: admin })).body;
    expect(user.last_login).toEqual(expect.any(Number)); // UNIX seconds
    expect(Math.abs(user.last_login - Date.now() / 1000)).toBeLessThan(5);
  });

  it('returns email as it was given, also when it is the only login, and keeps the alert fields', async () => {
    const res = await create({
      email: 'Pat.Doe@Example.com',
      password: 'pat-password-12',
      role: 'db_viewer',
      bdbs_email_alerts: ['1', '2'],
      cluster_email_alerts: true,
    });
    expect(res.body).toMatchObject({
      name: '',
      email: 'Pat.Doe@Example.com',
      bdbs_email_alerts: ['1', '2'],
      cluster_email_alerts: true,
      email_alerts: true,
    });
    const changed = await call(t, 'PUT', `/v1/users/${res.body.uid}`, {
      auth: admin,
      body: { email_alerts: false, bdbs_email_alerts: ['all'], name: 'Pat Doe' },
    });
    expect(changed.body).toMatchObject({
      name: 'Pat Doe',
      email: 'Pat.Doe@Example.com',
      email_alerts: false,
      bdbs_email_alerts: ['all'],
    });
    expect(await login(t, 'pat doe', 'pat-password-12')).toMatch(/^JWT /);
    expect(await login(t, 'pat.doe@example.com', 'pat-password-12')).toMatch(/^JWT /);
  });

  it('keeps names and emails unique after NFKC and case folding, across both fields', async () => {
    await create({ name: 'ops', email: 'ops@example.com', password: 'ops-password-12', role: 'none' });
    const cases: [unknown, string][] = [
      [{ name: 'ＯＰＳ', password: 'other-password-1', role: 'none' }, 'name_already_exists'],
      [{ email: 'OPS@example.com', password: 'other-password-1', role: 'none' }, 'email_already_exists'],
      [{ name: 'ops@example.com', password: 'other-password-1', role: 'none' }, 'name_already_exists'], // another's email as a name
      [{ name: 'other', email: 'ops@EXAMPLE.com', password: 'other-password-1', role: 'none' }, 'email_already_exists'],
    ];
    for (const [body, code] of cases) {
      const res = await create(body);
      expect([res.status, res.body.error_code]).toEqual([409, code]);
    }
    const other = await create({ name: 'other', password: 'other-password-1', role: 'none' });
    const clash = await call(t, 'PUT', `/v1/users/${other.body.uid}`, { auth: admin, body: { name: 'Ops' } });
    expect([clash.status, clash.body.error_code]).toEqual([409, 'name_already_exists']);
    expect(
      (await t.tessera.users.list())
        .map((u) => u.name)
        .filter(Boolean)
        .sort(),
    ).toEqual(['ops', 'other', 'root']);
  });

  it('refuses fields it does not know or that are read-only, naming them, and changes nothing', async () => {
    const pat = await create({ name: 'pat', password: 'pat-password-12', role: 'db_viewer' });
    for (const [body, field] of [
      [{ name: 'pat2', favourite_colour: 'blue' }, 'favourite_colour'],
      [{ name: 'pat2', uid: 9 }, 'uid'],
      [{ name: 'pat2', password_issue_date: '2020-01-01T00:00:00Z' }, 'password_issue_date'],
      [{ name: 'pat2', password_hash_method: '1' }, 'password_hash_method'],
    ] as const) {
      const res = await call(t, 'PUT', `/v1/users/${pat.body.uid}`, { auth: admin, body });
      expect([res.status, res.body.error_code]).toEqual([400, 'invalid_request']);
      expect(res.body.message).toContain(field);
    }
    expect((await call(t, 'GET', `/v1/users/${pat.body.uid}`, { auth: admin })).body.name).toBe('pat');
    const unknownOnCreate = await create({
      name: 'x',
      password: 'x-password-123',
      role: 'none',
      certificate_subject_line: 'CN=x',
    });
    expect(unknownOnCreate.status).toBe(400);
    expect(await t.tessera.users.findByUsername('x')).toBeUndefined();
  });

  it('validates with dry_run=true and creates or changes nothing', async () => {
    const dry = await call(t, 'POST', '/v1/users?dry_run=true', {
      auth: admin,
      body: { name: 'ghost', password: 'ghost-password-1', role: 'none' },
    });
    expect([dry.status, dry.body]).toEqual([200, {}]);
    expect(await t.tessera.users.findByUsername('ghost')).toBeUndefined();
    const badDry = await call(t, 'POST', '/v1/users?dry_run=true', {
      auth: admin,
      body: { name: 'root', password: 'ghost-password-1', role: 'none' },
    });
    expect(badDry.body.error_code).toBe('name_already_exists');
    const weakDry = await call(t, 'POST', '/v1/users?dry_run=true', {
      auth: admin,
      body: { name: 'ghost', password: 'short', role: 'none' },
    });
    expect(weakDry.body.error_code).toBe('password_not_complex');
    const pat = await create({ name: 'pat', password: 'pat-password-12', role: 'db_viewer' });
    const dryPut = await call(t, 'PUT', `/v1/users/${pat.body.uid}?dry_run=true`, {
      auth: admin,
      body: { role: 'admin', password: 'new-password-123' },
    });
    expect(dryPut.status).toBe(200);
    expect(dryPut.body.role).toBe('admin'); // the user as the request would leave it…
    expect((await call(t, 'GET', `/v1/users/${pat.body.uid}`, { auth: admin })).body.role).toBe('db_viewer'); // …not as it is
    expect(await login(t, 'pat', 'pat-password-12')).toMatch(/^JWT /);
  });
});

describe("changing one's own password", () => {
  let uid: number;
  beforeEach(async () => {
    uid = (await create({ name: 'vault', password: 'vault-password-1', role: 'db_member' })).body.uid;
  });
  const basic = (password: string) => t.basic('vault', password);

  it('with Basic credentials, the new password alone: PUT /v1/users/{own uid} (how Vault rotates its own) and PUT /v1/users/password', async () => {
    const put = await call(t, 'PUT', `/v1/users/${uid}`, {
      auth: basic('vault-password-1'),
      body: { password: 'vault-password-2' },
    });
    expect(put.status).toBe(200);
    expect(await login(t, 'vault', 'vault-password-2')).toMatch(/^JWT /);
    const replace = await call(t, 'PUT', '/v1/users/password', {
      auth: basic('vault-password-2'),
      body: { new_password: 'vault-password-3' },
    });
    expect(replace.status).toBe(200);
    const add = await call(t, 'POST', '/v1/users/password', {
      auth: basic('vault-password-3'),
      body: { new_password: 'vault-password-4' },
    });
    expect(add.status).toBe(200);
    const remove = await call(t, 'DELETE', '/v1/users/password', {
      auth: basic('vault-password-4'),
      body: { old_password: 'vault-password-3' },
    });
    expect(remove.status).toBe(200);
    expect(await login(t, 'vault', 'vault-password-4')).toMatch(/^JWT /);
    expect(
      (await call(t, 'POST', '/v1/users/authorize', { body: { username: 'vault', password: 'vault-password-3' } }))
        .status,
    ).toBe(401);
  });

  it('with a token of a login over five minutes old, the current password too (ASVS 2.1.6), on every endpoint', async () => {
    const issued = await call(t, 'POST', '/v1/users/authorize', {
      body: { username: 'vault', password: 'vault-password-1', ttl: 3600 },
    });
    const token = `JWT ${issued.body.access_token}`;
    t.advance(301);
    for (const [method, url, body] of [
      ['PUT', `/v1/users/${uid}`, { password: 'vault-password-2' }],
      ['PUT', '/v1/users/password', { new_password: 'vault-password-2' }],
      ['POST', '/v1/users/password', { new_password: 'vault-password-2' }],
    ] as const) {
      const res = await call(t, method, url, { auth: token, body });
      expect([url, res.status, res.body.error_code]).toEqual([url, 400, 'invalid_request']);
      expect(res.body.message).toContain('old_password');
    }
    const wrong = await call(t, 'PUT', '/v1/users/password', {
      auth: token,
      body: { new_password: 'vault-password-2', old_password: 'nope-nope-nope' },
    });
    expect(wrong.status).toBe(401);
    const right = await call(t, 'PUT', '/v1/users/password', {
      auth: token,
      body: { new_password: 'vault-password-2', old_password: 'vault-password-1' },
    });
    expect(right.status).toBe(200);
  });

  it('with a token of a login of the last five minutes, the new password alone: PUT /v1/users/{own uid} as the product documents it', async () => {
    const token = await login(t, 'vault', 'vault-password-1');
    t.advance(240);
    const put = await call(t, 'PUT', `/v1/users/${uid}`, { auth: token, body: { password: 'vault-password-2' } });
    expect(put.status).toBe(200);
    expect(await login(t, 'vault', 'vault-password-2')).toMatch(/^JWT /);
  });

  it('answers a bad body of an authenticated request with 400, not 401', async () => {
    for (const body of [{}, { new_password: 5 }, { new_password: 'x', extra: 1 }]) {
      const res = await call(t, 'PUT', '/v1/users/password', { auth: basic('vault-password-1'), body });
      expect(res.status).toBe(400);
    }
  });

  it("lets a user_manager set a non-admin's password through PUT /v1/users/{uid} only (the product's update_user), never an admin's", async () => {
    await create({ name: 'mgr', password: 'mgr-password-12', role: 'user_manager' });
    const mgr = t.basic('mgr', 'mgr-password-12');
    expect((await call(t, 'PUT', `/v1/users/${uid}`, { auth: mgr, body: { password: 'set-by-mgr-1' } })).status).toBe(
      200,
    );
    // /v1/users/password acts for another user for an admin only (update_users_passwords).
    expect(
      (
        await call(t, 'PUT', '/v1/users/password', {
          auth: mgr,
          body: { username: 'vault', new_password: 'set-by-mgr-2' },
        })
      ).body.error_code,
    ).toBe('unauthorized_action');
    const rootUid = (await t.tessera.users.findByUsername('root'))!.uid;
    expect(
      (await call(t, 'PUT', `/v1/users/${rootUid}`, { auth: mgr, body: { password: 'taken-over-1' } })).body.error_code,
    ).toBe('unauthorized_action');
    expect(
      (
        await call(t, 'PUT', '/v1/users/password', {
          auth: mgr,
          body: { username: 'root', new_password: 'taken-over-1' },
        })
      ).body.error_code,
    ).toBe('unauthorized_action');
  });
});
