import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, login } from '../helpers/http.js';
import { storeSnapshot } from '../helpers/store-snapshot.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

/*
 * Tools that read an object, change a field and write it back (GET, then PUT of the whole
 * body) send the server's own fields too: as GET answers them they are no change; another
 * value is refused, naming the field, and nothing is written.
 */

let t: TestTessera;
let admin: string;
beforeEach(async () => {
  t = await testTessera();
  await t.addUser('root', 'root-password', 'admin');
  admin = await login(t, 'root', 'root-password');
});
afterEach(() => t.close());

const get = (path: string, auth = admin) => call(t, 'GET', path, { auth });
const put = (path: string, body: unknown, auth = admin) => call(t, 'PUT', path, { auth, body });

/** A user made through the API, logged in once (so that GET answers its last_login). */
async function madeUser(body: Record<string, unknown>): Promise<number> {
  const res = await call(t, 'POST', '/v1/users', { auth: admin, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  if (body.password) await login(t, String(body.name ?? body.email), String(body.password));
  return res.body.uid;
}

describe('GET then PUT of the same body', () => {
  it('is no change for a local user, one with role_uids, one with an email alone and no role: 200, nothing written, its tokens kept', async () => {
    const { body: ops } = await call(t, 'POST', '/v1/roles', {
      auth: admin,
      body: { name: 'Ops', management: 'cluster_member' },
    });
    const users = [
      await madeUser({
        name: 'pat',
        email: 'pat@example.com',
        password: 'pat-password-12',
        role: 'db_viewer',
        bdbs_email_alerts: ['1', '2'],
        cluster_email_alerts: true,
      }),
      await madeUser({ name: 'quinn', password: 'quinn-password-12', role_uids: [ops.uid, 4, 3] }),
      await madeUser({ email: 'nobody@example.com', password: 'nobody-password-12', role_uids: [] }),
    ];
    const token = await login(t, 'pat', 'pat-password-12');
    for (const uid of users) {
      const read = await get(`/v1/users/${uid}`);
      expect(read.body.last_login).toEqual(expect.any(Number));
      const before = await storeSnapshot(t);
      const back = await put(`/v1/users/${uid}`, read.body);
      expect([back.status, back.body], JSON.stringify(read.body)).toEqual([200, read.body]);
      expect(await storeSnapshot(t), JSON.stringify(read.body)).toEqual(before); // neither written nor audited
    }
    expect((await get(`/v1/users/${users[2]}`)).body).toMatchObject({ name: '', role: 'none', role_uids: [] });
    expect((await get(`/v1/users/${users[0]}`, token)).status).toBe(200); // pat's token still stands
  });

  it('changes the one field a tool changed in what it read, and audits that field alone', async () => {
    const uid = await madeUser({ name: 'pat', password: 'pat-password-12', role_uids: [3, 4] });
    const read = (await get(`/v1/users/${uid}`)).body;
    // role beside role_uids reads them back: [4] alone is db_member, not the cluster_viewer read.
    const res = await put(`/v1/users/${uid}`, { ...read, email_alerts: false, role_uids: [4] });
    expect([res.status, res.body.message]).toEqual([400, expect.stringContaining('role_uids give "db_member"')]);
    const changed = await put(`/v1/users/${uid}`, { ...read, email_alerts: false, role_uids: [4], role: 'db_member' });
    expect([changed.status, changed.body]).toEqual([
      200,
      { ...read, email_alerts: false, role_uids: [4], role: 'db_member' },
    ]);
    await t.tessera.eventWriter.flush();
    const updates = (await get('/v1/logs?type=user_updated')).body;
    expect(updates.map((e: { changes: string[] }) => [...e.changes].sort())).toEqual([
      ['email_alerts', 'role', 'role_uids'],
    ]);
  });

  it('lets users send back their own object (a user that may not manage users), changing only their alerts', async () => {
    const uid = await madeUser({ name: 'vi', password: 'vi-password-123', role: 'db_viewer' });
    const own = await login(t, 'vi', 'vi-password-123');
    const read = (await get(`/v1/users/${uid}`, own)).body;
    expect((await put(`/v1/users/${uid}`, read, own)).status).toBe(200);
    const res = await put(`/v1/users/${uid}`, { ...read, email_alerts: false }, own);
    expect([res.status, res.body.email_alerts]).toEqual([200, false]);
    // Its name is still not its own to change, nor its roles.
    for (const body of [
      { ...read, name: 'someone' },
      { ...read, role_uids: [1], role: 'admin' },
    ]) {
      const refused = await put(`/v1/users/${uid}`, body, own);
      expect([refused.status, refused.body.error_code]).toEqual([403, 'unauthorized_action']);
    }
  });

  it('takes last_login from an earlier read (it moves forward with each login), not one to come', async () => {
    const uid = await madeUser({ name: 'svc', password: 'svc-password-123', role: 'db_viewer' });
    const read = (await get(`/v1/users/${uid}`)).body;
    t.advance(120);
    await login(t, 'svc', 'svc-password-123'); // a login between the read and the write
    expect((await get(`/v1/users/${uid}`)).body.last_login).toBeGreaterThan(read.last_login);
    expect((await put(`/v1/users/${uid}`, read)).status).toBe(200);
    const ahead = await put(`/v1/users/${uid}`, { ...read, last_login: read.last_login + 3600 });
    expect([ahead.status, ahead.body.message]).toEqual([
      400,
      'last_login is read-only: send it as GET answers it, or leave it out',
    ]);
  });

  it('refuses a read-only field with another value, naming it, and writes nothing', async () => {
    const uid = await madeUser({ name: 'pat', password: 'pat-password-12', role: 'db_viewer' });
    const read = (await get(`/v1/users/${uid}`)).body;
    const before = await storeSnapshot(t);
    for (const [field, value] of [
      ['uid', uid + 1],
      ['status', 'locked'],
      ['password_issue_date', '2020-01-01T00:00:00Z'],
      ['last_login', read.last_login + 60],
      ['username', 'pat2'],
    ] as const) {
      // Beside a change that would be taken alone: nothing of the request is.
      const res = await put(`/v1/users/${uid}`, { ...read, email_alerts: false, [field]: value });
      expect([res.status, res.body], field).toEqual([
        400,
        { error_code: 'invalid_request', message: `${field} is read-only: send it as GET answers it, or leave it out` },
      ]);
    }
    // A field it does not know, or a read-only one GET never answers, is refused as before.
    for (const [field, message] of [
      ['favourite_colour', 'unknown field "favourite_colour"'],
      ['action_uid', 'action_uid is read-only'],
      ['account_id', 'account_id is read-only'],
    ] as const) {
      const res = await put(`/v1/users/${uid}`, { ...read, [field]: 'x' });
      expect([res.status, res.body.message], field).toEqual([400, expect.stringContaining(message)]);
    }
    // A name "" is how GET answers a user without one: for a user with a name it is no way to remove it.
    const blank = await put(`/v1/users/${uid}`, { ...read, name: '' });
    expect([blank.status, blank.body.error_code]).toEqual([400, 'invalid_request']);
    expect(await storeSnapshot(t)).toEqual(before);
  });

  it('answers a user_manager sending back an admin with 403 before any read-only field is looked at', async () => {
    await t.addUser('ivan', 'ivan-password-1', 'user_manager');
    const manager = await login(t, 'ivan', 'ivan-password-1');
    const read = (await get('/v1/users/1')).body;
    const res = await put('/v1/users/1', { ...read, uid: 99 }, manager);
    expect([res.status, res.body.error_code]).toEqual([403, 'unauthorized_action']);
  });
});

describe('GET then PUT of a role', () => {
  it('is no change for a built-in role and a role of the cluster (with its databases): nothing written, holders keep their tokens', async () => {
    const { body: readers } = await call(t, 'POST', '/v1/roles', {
      auth: admin,
      body: { name: 'Readers', management: 'db_viewer', resources: [{ type: 'db', uids: ['2', '1'] }] },
    });
    await madeUser({ name: 'holder', password: 'holder-password-1', role_uids: [readers.uid] });
    const token = await login(t, 'holder', 'holder-password-1');
    for (const uid of [1, 5, readers.uid]) {
      const read = await get(`/v1/roles/${uid}`);
      const before = await storeSnapshot(t);
      const back = await put(`/v1/roles/${uid}`, read.body);
      expect([back.status, back.body]).toEqual([200, read.body]);
      expect(await storeSnapshot(t)).toEqual(before);
    }
    expect((await get('/v1/roles/5')).body).toEqual({ uid: 5, name: 'DB Viewer', management: 'db_viewer' });
    expect((await get(`/v1/roles/${readers.uid}`)).body.resources).toEqual([{ type: 'db', uids: ['1', '2'] }]);
    expect((await call(t, 'GET', '/v1/roles', { auth: token })).status).toBe(200);
    // One field changed in what was read: that change alone.
    const renamed = await put(`/v1/roles/${readers.uid}`, { ...readers, name: 'Auditors' });
    expect(renamed.body).toEqual({ ...readers, name: 'Auditors', resources: [{ type: 'db', uids: ['1', '2'] }] });
  });

  it('refuses another uid in the body, naming it, and writes nothing', async () => {
    const { body: role } = await call(t, 'POST', '/v1/roles', {
      auth: admin,
      body: { name: 'Ops', management: 'cluster_member' },
    });
    const before = await storeSnapshot(t);
    for (const [uid, body] of [
      [role.uid, { ...role, uid: role.uid + 1, name: 'Other' }],
      [5, { uid: 4, name: 'DB Viewer', management: 'db_viewer' }],
    ] as const) {
      const res = await put(`/v1/roles/${uid}`, body);
      expect([res.status, res.body]).toEqual([
        400,
        { error_code: 'invalid_request', message: 'uid is read-only: send it as GET answers it, or leave it out' },
      ]);
    }
    const unknown = await put(`/v1/roles/${role.uid}`, { ...role, action_uid: 'x' });
    expect([unknown.status, unknown.body.message]).toEqual([400, 'action_uid is read-only']);
    expect(await storeSnapshot(t)).toEqual(before);
  });
});
