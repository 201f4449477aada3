import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Call, call, login } from '../helpers/http.js';
import { storeSnapshot } from '../helpers/store-snapshot.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

/*
 * `?dry_run` on every request the product's docs give it: users POST and PUT, roles POST
 * and PUT (requests/users, requests/roles), roles DELETE (the docs' OpenAPI file), cluster
 * PUT (requests/cluster). In every form the docs write — bare, `=` (empty), `=true`, `=1` —
 * it checks what the request would check, answers what it would answer, and writes nothing;
 * `=false` and `=0` are the request itself.
 */

const DRY = ['dry_run', 'dry_run=', 'dry_run=true', 'dry_run=1'];
const REAL = ['dry_run=false', 'dry_run=0'];

type Method = 'POST' | 'PUT' | 'DELETE';

let t: TestTessera;
let admin: string;
let manager: string;
let roleUid: number;
let userUid: number;
beforeEach(async () => {
  t = await testTessera();
  await t.addUser('root', 'root-password', 'admin');
  await t.addUser('ivan', 'ivan-password-1', 'user_manager');
  admin = await login(t, 'root', 'root-password');
  manager = await login(t, 'ivan', 'ivan-password-1');
  roleUid = (await call(t, 'POST', '/v1/roles', { auth: admin, body: { name: 'Ops', management: 'db_member' } })).body
    .uid;
  userUid = (
    await call(t, 'POST', '/v1/users', {
      auth: admin,
      body: { name: 'pat', password: 'pat-password-12', role_uids: [roleUid] },
    })
  ).body.uid;
});
afterEach(() => t.close());

const at = (path: string, form: string) => `${path}${path.includes('?') ? '&' : '?'}${form}`;

/** Each dry form of a request: each answered as `expected`, and the store as it was after all of them. */
async function dryForms(method: Method, path: string, body: unknown, expected: (res: Call) => void, auth = admin) {
  const before = await storeSnapshot(t);
  for (const form of DRY) {
    const res = await call(t, method, at(path, form), { auth, body });
    expected(res);
  }
  expect(await storeSnapshot(t), `${method} ${path}`).toEqual(before);
}

describe('?dry_run on each request the docs give it', () => {
  it("POST /v1/users (the docs' example): 200 {} in every form, nothing written; =false and =0 make the user", async () => {
    const example = {
      email: 'newuser@example.com',
      password: 'my-password',
      name: 'Pat Doe',
      email_alerts: true,
      bdbs_email_alerts: ['1', '2'],
      role_uids: [3, 4],
      auth_method: 'regular',
    };
    await dryForms('POST', '/v1/users', example, (res) => expect([res.status, res.body]).toEqual([200, {}]));
    for (const [i, form] of REAL.entries()) {
      const res = await call(t, 'POST', at('/v1/users', form), {
        auth: admin,
        body: { ...example, email: `newuser${i}@example.com`, name: `Pat Doe ${i}` },
      });
      expect([res.status, res.body.role_uids, res.body.role], form).toEqual([200, [3, 4], 'cluster_viewer']);
    }
  });

  it("PUT /v1/users/{uid} (the docs' example): answers the user as the real request then does, nothing written; =false and =0 change it", async () => {
    const example = { email_alerts: false, role_uids: [2, 4] };
    const answers: Call[] = [];
    await dryForms('PUT', `/v1/users/${userUid}`, example, (res) => answers.push(res));
    const real = await call(t, 'PUT', `/v1/users/${userUid}`, { auth: admin, body: example });
    expect(real.body).toMatchObject({ role: 'cluster_member', role_uids: [2, 4], email_alerts: false });
    for (const dry of answers) expect([dry.status, dry.body]).toEqual([200, real.body]);
    // With a new password too: its date and status as they would be.
    const withPassword = { password: 'another-password-1', email_alerts: true };
    const dry = await call(t, 'PUT', `/v1/users/${userUid}?dry_run`, { auth: admin, body: withPassword });
    const changed = await call(t, 'PUT', `/v1/users/${userUid}?dry_run=0`, { auth: admin, body: withPassword });
    expect([changed.status, dry.body]).toEqual([200, changed.body]);
    expect(await login(t, 'pat', 'another-password-1')).toMatch(/^JWT /);
    const back = await call(t, 'PUT', `/v1/users/${userUid}?dry_run=false`, { auth: admin, body: { role_uids: [5] } });
    expect(back.body.role_uids).toEqual([5]);
  });

  it("POST /v1/roles (the docs' example): 200 {} in every form, nothing written; =false and =0 make the role", async () => {
    const example = { name: 'DBA', management: 'admin' };
    await dryForms('POST', '/v1/roles', example, (res) => expect([res.status, res.body]).toEqual([200, {}]));
    for (const form of REAL) {
      const res = await call(t, 'POST', at('/v1/roles', form), { auth: admin, body: { ...example, name: form } });
      expect([res.status, res.body], form).toEqual([200, { uid: expect.any(Number), name: form, management: 'admin' }]);
    }
  });

  it("PUT /v1/roles/{uid} (the docs' example): answers the role as the real request then does, nothing written or ended", async () => {
    const holder = await login(t, 'pat', 'pat-password-12');
    const example = { management: 'cluster_member' };
    const answers: Call[] = [];
    await dryForms('PUT', `/v1/roles/${roleUid}`, example, (res) => answers.push(res));
    expect((await call(t, 'GET', `/v1/users/${userUid}`, { auth: holder })).status).toBe(200); // its holder's token stands
    const real = await call(t, 'PUT', `/v1/roles/${roleUid}?dry_run=false`, { auth: admin, body: example });
    expect(real.body).toEqual({ uid: roleUid, name: 'Ops', management: 'cluster_member' });
    for (const dry of answers) expect([dry.status, dry.body]).toEqual([200, real.body]);
    expect((await call(t, 'GET', `/v1/users/${userUid}`, { auth: holder })).status).toBe(401); // ended by the real one
    const scoped = { management: 'db_viewer', resources: [{ type: 'db', uids: ['1'] }] };
    const dryScoped = await call(t, 'PUT', `/v1/roles/${roleUid}?dry_run=1`, { auth: admin, body: scoped });
    const realScoped = await call(t, 'PUT', `/v1/roles/${roleUid}?dry_run=0`, { auth: admin, body: scoped });
    expect([realScoped.status, dryScoped.body]).toEqual([200, realScoped.body]);
  });

  it("DELETE /v1/roles/{uid} (the docs' OpenAPI): 200 {} in every form, nothing deleted; =false deletes", async () => {
    const { body: spare } = await call(t, 'POST', '/v1/roles', {
      auth: admin,
      body: { name: 'Spare', management: 'none' },
    });
    await dryForms('DELETE', `/v1/roles/${spare.uid}`, undefined, (res) =>
      expect([res.status, res.body]).toEqual([200, {}]),
    );
    expect((await call(t, 'DELETE', `/v1/roles/${spare.uid}?dry_run=false`, { auth: admin })).status).toBe(200);
    expect((await call(t, 'GET', `/v1/roles/${spare.uid}`, { auth: admin })).status).toBe(404);
  });

  it('PUT /v1/cluster: answers the settings as the real request then does, nothing written', async () => {
    const change = { password_min_length: 12, cm_session_timeout_minutes: 30 };
    const answers: Call[] = [];
    await dryForms('PUT', '/v1/cluster', change, (res) => answers.push(res));
    expect((await call(t, 'GET', '/v1/cluster', { auth: admin })).body.password_min_length).toBe(8);
    const real = await call(t, 'PUT', '/v1/cluster?dry_run=0', { auth: admin, body: change });
    expect(real.body).toMatchObject(change);
    for (const dry of answers) expect([dry.status, dry.body]).toEqual([200, real.body]);
  });

  it('refuses with what the real request answers, in every form, writing nothing', async () => {
    const { body: holder } = await call(t, 'POST', '/v1/roles', {
      auth: admin,
      body: { name: 'Held', management: 'none' },
    });
    await call(t, 'PUT', `/v1/users/${userUid}`, { auth: admin, body: { role_uids: [roleUid, holder.uid] } });
    const cases: [Method, string, unknown, number, string, string?][] = [
      ['POST', '/v1/users', { name: 'pat', password: 'other-password-1' }, 409, 'name_already_exists'],
      ['POST', '/v1/users', { name: 'new', password: 'short' }, 400, 'password_not_complex'],
      ['POST', '/v1/users', { name: 'new', password: 'new-password-12', role_uids: [42] }, 400, 'invalid_request'],
      [
        'POST',
        '/v1/users',
        { name: 'new', password: 'new-password-12', role: 'admin' },
        403,
        'unauthorized_action',
        'manager',
      ],
      ['POST', '/v1/users', { name: 'new', password: 'new-password-12', uid: 9 }, 400, 'invalid_request'],
      ['PUT', '/v1/users/1', { role_uids: [5] }, 403, 'unauthorized_action'], // its own roles
      ['PUT', `/v1/users/${userUid}`, { name: 'root' }, 409, 'name_already_exists'],
      ['PUT', `/v1/users/${userUid}`, { status: 'locked' }, 400, 'invalid_request'],
      ['PUT', `/v1/users/${userUid}`, { password: 'pat' }, 400, 'password_not_complex'],
      ['PUT', '/v1/users/1', { email_alerts: false }, 403, 'unauthorized_action', 'manager'],
      ['PUT', '/v1/users/999', { email_alerts: false }, 404, 'user_not_found'],
      ['POST', '/v1/roles', { name: 'Ops', management: 'none' }, 409, 'name_already_exists'],
      ['POST', '/v1/roles', { name: 'Root', management: 'admin' }, 403, 'unauthorized_action', 'manager'],
      [
        'POST',
        '/v1/roles',
        { name: 'R', management: 'cluster_member', resources: [{ type: 'db', uids: ['1'] }] },
        400,
        'invalid_request',
      ],
      ['PUT', '/v1/roles/5', { name: 'Readers' }, 406, 'update_builtin_role_not_allowed'],
      ['PUT', `/v1/roles/${roleUid}`, { name: 'Admin' }, 409, 'name_already_exists'],
      ['PUT', `/v1/roles/${roleUid}`, { uid: 1 }, 400, 'invalid_request'],
      ['PUT', '/v1/roles/999', { name: 'X' }, 404, 'role_not_found'],
      ['DELETE', `/v1/roles/${holder.uid}`, undefined, 406, 'role_in_use'],
      ['DELETE', '/v1/roles/6', undefined, 406, 'delete_builtin_role_not_allowed'],
      ['DELETE', '/v1/roles/1', undefined, 403, 'unauthorized_action', 'manager'],
      ['DELETE', '/v1/roles/999', undefined, 404, 'role_not_found'],
      ['PUT', '/v1/cluster', { password_min_length: 2 }, 400, 'invalid_request'],
      ['PUT', '/v1/cluster', { password_min_length: 12 }, 403, 'forbidden', 'manager'],
    ];
    for (const [method, path, body, status, code, who] of cases) {
      const auth = who === 'manager' ? manager : admin;
      const what = `${method} ${path} ${JSON.stringify(body)}`;
      await dryForms(
        method,
        path,
        body,
        (res) => expect([res.status, res.body.error_code], what).toEqual([status, code]),
        auth,
      );
      const real = await call(t, method, path, { auth, body });
      expect([real.status, real.body.error_code], `${what} (real)`).toEqual([status, code]);
    }
  });

  it('refuses a dry_run it cannot read, and a query parameter the request does not take, changing nothing', async () => {
    const before = await storeSnapshot(t);
    for (const [method, path, body] of [
      ['POST', '/v1/users?dry_run=yes', { name: 'x', password: 'x-password-123' }],
      ['PUT', `/v1/users/${userUid}?dryrun=1`, { email_alerts: false }],
      ['DELETE', `/v1/roles/${roleUid}?dry_run=maybe`, undefined],
      ['PUT', '/v1/cluster?dry_run=TRUE', { password_min_length: 12 }],
    ] as const) {
      const res = await call(t, method, path, { auth: admin, body });
      expect([res.status, res.body.error_code], path).toEqual([400, 'invalid_request']);
    }
    expect(await storeSnapshot(t)).toEqual(before);
  });
});
