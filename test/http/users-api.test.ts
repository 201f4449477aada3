import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI_CONTEXT } from '../../src/audit/audit-log.js';
import { call, login } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
let admin: string;
let ids: Record<'root' | 'manager' | 'viewer', number>;

beforeEach(async () => {
  t = await testTessera();
  ids = {
    root: await t.addUser('root', 'root-password', 'admin'),
    manager: await t.addUser('manager', 'manager-password', 'user_manager'),
    viewer: await t.addUser('viewer', 'viewer-password', 'cluster_viewer'),
  };
  admin = await login(t, 'root', 'root-password');
});
afterEach(() => t.close());

describe('POST /v1/users', () => {
  it('creates a user that can log in, and returns the user object without secrets', async () => {
    const res = await call(t, 'POST', '/v1/users', {
      auth: admin,
      body: { email: 'ops@example.com', password: 'ops-password-1', role: 'db_member', name: 'Ops' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      uid: expect.any(Number),
      username: 'Ops',
      email: 'ops@example.com',
      name: 'Ops',
      role: 'db_member',
      role_uids: [4],
      auth_method: 'regular',
      status: 'active',
      password_issue_date: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      email_alerts: true,
      cluster_email_alerts: false,
    });
    // Either login works, in any case.
    expect(await login(t, 'OPS@example.com', 'ops-password-1')).toMatch(/^JWT /);
    expect(await login(t, 'ops', 'ops-password-1')).toMatch(/^JWT /);
  });

  it('answers 409 for a taken name, whatever its case or Unicode form', async () => {
    const res = await call(t, 'POST', '/v1/users', {
      auth: admin,
      body: { username: 'ＶＩＥＷＥＲ', password: 'another-pass-1', role: 'none' },
    });
    expect(res.status).toBe(409);
    expect(res.body.error_code).toBe('name_already_exists');
    await call(t, 'POST', '/v1/users', {
      auth: admin,
      body: { email: 'a@b.io', password: 'another-pass-1', role: 'none' },
    });
    const email = await call(t, 'POST', '/v1/users', {
      auth: admin,
      body: { email: 'A@B.io', password: 'another-pass-1', role: 'none' },
    });
    expect(email.status).toBe(409);
    expect(email.body.error_code).toBe('email_already_exists');
  });

  it.each([
    ['too short', 'short1'],
    ['one of the most common passwords', 'password123'],
  ])('answers 400 password_not_complex for a password %s', async (_why, password) => {
    const res = await call(t, 'POST', '/v1/users', { auth: admin, body: { username: 'new', password, role: 'none' } });
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe('password_not_complex');
    expect(await t.tessera.users.findByUsername('new')).toBeUndefined();
  });

  it('checks who may create whom', async () => {
    const manager = await login(t, 'manager', 'manager-password');
    const viewer = await login(t, 'viewer', 'viewer-password');
    const body = { username: 'new', password: 'new-password-1', role: 'db_viewer' };
    expect((await call(t, 'POST', '/v1/users', { auth: viewer, body })).body.error_code).toBe('forbidden');
    const escalation = await call(t, 'POST', '/v1/users', { auth: manager, body: { ...body, role: 'admin' } });
    expect(escalation.status).toBe(403);
    expect(escalation.body.error_code).toBe('unauthorized_action');
    expect((await call(t, 'POST', '/v1/users', { auth: manager, body })).status).toBe(200);
  });

  it('answers 400 for a bad role, no login, an email that is not one, or username beside what it sets', async () => {
    for (const body of [
      { username: 'x', password: 'new-password-1', role: 'root' },
      { username: 'x', name: 'y', password: 'new-password-1', role: 'none' },
      { username: 'x@y.io', email: 'x@y.io', password: 'new-password-1', role: 'none' },
      { email: 'not-an-address', password: 'new-password-1', role: 'none' },
      { password: 'new-password-1', role: 'none' },
      { name: 'x'.repeat(257), password: 'new-password-1', role: 'none' },
    ]) {
      expect((await call(t, 'POST', '/v1/users', { auth: admin, body })).status).toBe(400);
    }
    const long = await call(t, 'POST', '/v1/users', {
      auth: admin,
      body: { name: 'x'.repeat(257), password: 'new-password-1', role: 'none' },
    });
    expect(long.body.message).toMatch(/name .*256 characters/);
  });

  it('takes names and emails in the product\'s ASCII only: no other scripts, zero-width or right-to-left marks, " & < >', async () => {
    for (const name of ['émile', 'ad\u200bmin', '\u202eadmin', 'a<b', 'Tom & Jerry', 'say "hi"']) {
      const res = await call(t, 'POST', '/v1/users', {
        auth: admin,
        body: { name, password: 'Ascii-only-pass-1', role: 'none' },
      });
      expect([name, res.status, res.body.message]).toEqual([name, 400, expect.stringContaining('printable ASCII')]);
    }
    for (const email of ['zoë@example.com', 'ops@exämple.com', 'o p@example.com']) {
      const res = await call(t, 'POST', '/v1/users', {
        auth: admin,
        body: { email, password: 'Ascii-only-pass-1', role: 'none' },
      });
      expect([email, res.status]).toEqual([email, 400]);
    }
    const fine = await call(t, 'POST', '/v1/users', {
      auth: admin,
      body: {
        name: "O'Brien (ops) #1",
        email: 'o.brien+ops@example.co.uk',
        password: 'Ascii-only-pass-1',
        role: 'none',
      },
    });
    expect(fine.status, JSON.stringify(fine.body)).toBe(200);
    expect((await call(t, 'DELETE', `/v1/users/${fine.body.uid}`, { auth: admin })).status).toBe(200);
  });

  it('gives a user made with neither role nor role_uids the product\'s default, db_viewer; takes email "" as no email', async () => {
    const made = await call(t, 'POST', '/v1/users', {
      auth: admin,
      body: { name: 'defaulted', email: '', password: 'Defaulted-password-1' },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body).toMatchObject({ name: 'defaulted', email: '', role: 'db_viewer', role_uids: [5] });
    const emailed = await call(t, 'PUT', `/v1/users/${made.body.uid}`, {
      auth: admin,
      body: { email: 'defaulted@example.com' },
    });
    expect(emailed.body.email).toBe('defaulted@example.com');
    expect((await call(t, 'PUT', `/v1/users/${made.body.uid}`, { auth: admin, body: { email: '' } })).body.email).toBe(
      '',
    );
    expect((await call(t, 'DELETE', `/v1/users/${made.body.uid}`, { auth: admin })).status).toBe(200);
  });
});

describe('PUT /v1/users/{uid}', () => {
  it('demotes through role_uids: the one source of roles, as the product keeps them (its docs example too)', async () => {
    const made = await call(t, 'POST', '/v1/users', {
      auth: admin,
      body: { name: 'boss', password: 'Boss-password-1', role: 'admin' },
    });
    expect(made.body).toMatchObject({ role: 'admin', role_uids: [1] });
    const boss = await login(t, 'boss', 'Boss-password-1');
    const demoted = await call(t, 'PUT', `/v1/users/${made.body.uid}`, { auth: admin, body: { role_uids: [5] } });
    expect(demoted.body).toMatchObject({ role: 'db_viewer', role_uids: [5] });
    // The demotion ended its tokens; a new login holds db_viewer alone.
    expect((await call(t, 'GET', '/v1/users', { auth: boss })).status).toBe(401);
    const again = await login(t, 'boss', 'Boss-password-1');
    expect((await call(t, 'GET', '/v1/users/role', { auth: again })).body).toEqual({ role: 'db_viewer' });
    expect((await call(t, 'GET', '/v1/users', { auth: again })).status).toBe(403);
    // The docs' own example: PUT /v1/users/1 {"role_uids": [2, 4]} answers cluster_member.
    const docs = await call(t, 'PUT', `/v1/users/${made.body.uid}`, { auth: admin, body: { role_uids: [2, 4] } });
    expect(docs.body).toMatchObject({ role: 'cluster_member', role_uids: [2, 4] });
    // role alone means the built-in role of that level, replacing the others.
    const byLevel = await call(t, 'PUT', `/v1/users/${made.body.uid}`, { auth: admin, body: { role: 'user_manager' } });
    expect(byLevel.body).toMatchObject({ role: 'user_manager', role_uids: [7] });
  });

  it('refuses a change of its own roles, to a user_manager as to anyone', async () => {
    const manager = await login(t, 'manager', 'manager-password');
    for (const body of [{ role_uids: [8] }, { role_uids: [1] }, { role: 'admin' }, { role_uids: [7, 2] }]) {
      const res = await call(t, 'PUT', `/v1/users/${ids.manager}`, { auth: manager, body });
      expect([res.status, res.body.error_code], JSON.stringify(body)).toEqual([403, 'unauthorized_action']);
    }
    // Its roles sent back as they are: no change, taken.
    const same = await call(t, 'PUT', `/v1/users/${ids.manager}`, { auth: manager, body: { role_uids: [7] } });
    expect([same.status, same.body.role]).toEqual([200, 'user_manager']);
  });

  it('lets an admin change role and name', async () => {
    const res = await call(t, 'PUT', `/v1/users/${ids.viewer}`, {
      auth: admin,
      body: { role: 'db_member', name: 'Vi' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ role: 'db_member', name: 'Vi' });
  });

  it('lets users change their own password with the current one, and alerts, but not their name (a login) or role, nor learn of other uids', async () => {
    const viewer = await login(t, 'viewer', 'viewer-password');
    expect(
      (await call(t, 'PUT', `/v1/users/${ids.viewer}`, { auth: viewer, body: { email_alerts: false } })).body
        .email_alerts,
    ).toBe(false);
    // A rename refused as taken would tell whoever tries that a name exists: the name is changed by who manages users.
    for (const name of ['Me', 'root']) {
      const renamed = await call(t, 'PUT', `/v1/users/${ids.viewer}?dry_run=true`, { auth: viewer, body: { name } });
      expect([renamed.status, renamed.body.error_code], name).toEqual([403, 'unauthorized_action']);
    }
    for (const uid of [ids.root, 9999]) {
      const other = await call(t, 'PUT', `/v1/users/${uid}`, { auth: viewer, body: { email_alerts: true } });
      expect([other.status, other.body.error_code], String(uid)).toEqual([403, 'unauthorized_action']);
    }
    const role = await call(t, 'PUT', `/v1/users/${ids.viewer}`, { auth: viewer, body: { role: 'admin' } });
    expect(role.status).toBe(403);
    expect(role.body.error_code).toBe('unauthorized_action');
    // A token of a login over five minutes old changes its own password with the current one only.
    const issued = await call(t, 'POST', '/v1/users/authorize', {
      body: { username: 'viewer', password: 'viewer-password', ttl: 3600 },
    });
    const older = `JWT ${issued.body.access_token}`;
    t.advance(301);
    const noOld = await call(t, 'PUT', `/v1/users/${ids.viewer}`, {
      auth: older,
      body: { password: 'viewer-password-2' },
    });
    expect(noOld.status).toBe(400);
    const ok = await call(t, 'PUT', `/v1/users/${ids.viewer}`, {
      auth: older,
      body: { password: 'viewer-password-2', old_password: 'viewer-password' },
    });
    expect(ok.status).toBe(200);
    // The change ended every token of the user, the one it was made with included.
    expect((await call(t, 'GET', `/v1/users/${ids.viewer}`, { auth: older })).status).toBe(401);
    const again = await login(t, 'viewer', 'viewer-password-2');
    expect((await call(t, 'PUT', `/v1/users/${ids.root}`, { auth: again, body: { name: 'x' } })).status).toBe(403);
  });

  it('never demotes the last admin (406), and keeps user_manager off admins', async () => {
    // Nobody changes its own roles; the CLI (every right) meets the last-admin rule.
    const own = await call(t, 'PUT', `/v1/users/${ids.root}`, { auth: admin, body: { role: 'none' } });
    expect([own.status, own.body.error_code]).toEqual([403, 'unauthorized_action']);
    await expect(t.tessera.userUpdate.update(null, ids.root, { role: 'none' }, CLI_CONTEXT)).rejects.toMatchObject({
      code: 'change_last_admin_role_not_allowed',
    });
    const manager = await login(t, 'manager', 'manager-password');
    expect(
      (await call(t, 'PUT', `/v1/users/${ids.root}`, { auth: manager, body: { name: 'x' } })).body.error_code,
    ).toBe('unauthorized_action');
  });

  it('answers 404 for an unknown uid', async () => {
    expect((await call(t, 'PUT', '/v1/users/999', { auth: admin, body: { name: 'x' } })).status).toBe(404);
  });
});

describe('DELETE /v1/users/{uid}', () => {
  it('deletes a user, who can no longer log in', async () => {
    expect((await call(t, 'DELETE', `/v1/users/${ids.viewer}`, { auth: admin })).status).toBe(200);
    expect(
      (await call(t, 'POST', '/v1/users/authorize', { body: { username: 'viewer', password: 'viewer-password' } }))
        .status,
    ).toBe(401);
    expect((await call(t, 'DELETE', `/v1/users/${ids.viewer}`, { auth: admin })).status).toBe(404);
  });

  it('never deletes the last admin (406)', async () => {
    const res = await call(t, 'DELETE', `/v1/users/${ids.root}`, { auth: admin });
    expect(res.status).toBe(406);
    expect(res.body.error_code).toBe('delete_last_admin_not_allowed');
  });

  it('is for admin and user_manager', async () => {
    const viewer = await login(t, 'viewer', 'viewer-password');
    expect((await call(t, 'DELETE', `/v1/users/${ids.manager}`, { auth: viewer })).status).toBe(403);
  });
});
