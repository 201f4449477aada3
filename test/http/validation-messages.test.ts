import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
let root: string;
beforeAll(async () => {
  t = await testTessera();
  await t.addUser('root', 'root-password', 'admin');
  root = await login(t, 'root', 'root-password');
});
afterAll(() => t.close());

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const CASES: [Method, string, unknown, string | RegExp][] = [
  [
    'POST',
    '/v1/users',
    { username: 'x', password: 'some-password-1', role: 'superuser' },
    'role must be one of admin, user_manager, cluster_member, cluster_viewer, db_member, db_viewer, token_verifier, none',
  ],
  [
    'POST',
    '/v1/users',
    { username: 'x', role: 'admin' },
    'Give a "password" (or auth_method "certificate" and certificate_subject_line, or "api_key" for a service account)',
  ],
  ['POST', '/v1/users', { username: '', password: 'some-password-1', role: 'admin' }, 'username must not be empty'],
  [
    'PUT',
    '/v1/cluster',
    { password_min_lenght: 9 },
    'unknown field "password_min_lenght" (did you mean password_min_length?)',
  ],
  ['PUT', '/v1/cluster', { password_min_length: 2 }, 'password_min_length must be at least 8'],
  ['PUT', '/v1/cluster', { password_complexity: 'yes' }, 'password_complexity must be true or false'],
  [
    'PUT',
    '/v1/cluster/policy',
    { login_lockout_treshold: 3 },
    'unknown field "login_lockout_treshold" (did you mean login_lockout_threshold?)',
  ],
  [
    'PUT',
    '/v1/cluster',
    { colour_scheme: 'dark' },
    /^unknown field "colour_scheme" \(this request takes \d+ fields: see its schema in GET \/v1\/openapi\.json\)$/,
  ],
  [
    'PUT',
    '/v1/cluster',
    { logrotate_settings: { compress: true } },
    'unknown field "logrotate_settings.compress" (known: maxage, maxsize, rotate)',
  ],
  [
    'POST',
    '/v1/users',
    { name: 'x', password: 'some-password-1', role: 'none', password_hash_method: 2 },
    'password_hash_method must be one of 1, "1"',
  ],
  [
    'POST',
    '/v1/users',
    { name: 'x', password: 'some-password-1', role_uids: ['3'] },
    'role_uids.0 must be a whole number',
  ],
  // A read-only field as GET answers it is no change (issue 35); another value is refused, naming it.
  ['PUT', '/v1/users/1', { uid: 2 }, 'uid is read-only: send it as GET answers it, or leave it out'],
  ['PUT', '/v1/users/1', { status: 'locked' }, 'status is read-only: send it as GET answers it, or leave it out'],
  ['POST', '/v1/users', { name: 'x', password: 'some-password-1', uid: 7 }, 'uid is read-only'],
  [
    'POST',
    '/v1/roles',
    { name: 'DBA', management: 'db_viewer', resources: [{ type: 'db', uids: ['1', '1'] }] },
    'resources.0.uids holds the same value twice',
  ],
  [
    'POST',
    '/v1/roles',
    { name: 'DBA', management: 'db_viewer', resources: [{ type: 'db', uids: [1] }] },
    'resources.0.uids.0 must be a string',
  ],
  [
    'POST',
    '/v1/roles',
    { name: 'DBA', management: 'db_viewer', resources: [{ type: 'db', uids: ['01'] }] },
    'resources.0.uids.0 must be a database uid: digits, as a string ("1")',
  ],
  [
    'POST',
    '/v1/roles',
    { name: 'DBA', management: 'db_viewer', resources: [{ type: 'bdb', uids: ['1'] }] },
    'resources.0.type must be one of db',
  ],
  [
    'POST',
    '/v1/roles',
    { name: 'DBA', management: 'db_viewer', resources: [{ type: 'db', uids: [] }] },
    'resources.0.uids must not be empty',
  ],
  [
    'POST',
    '/v1/roles',
    { name: 'DBA', management: 'db_viewer', resources: [{ type: 'db', uid: ['1'] }] },
    /^resources\.0\.uids is required|^unknown field "resources\.0\.uid"/,
  ],
  ['PUT', '/v1/users/1', { email_alerts: 'yes' }, 'email_alerts must be true or false'],
  ['POST', '/v1/roles', { name: 'DBA' }, 'management is required'],
  ['POST', '/v1/roles', { name: 'DBA', management: 'root' }, /^management must be one of admin, /],
  ['POST', '/v1/users/authorize', { username: 'x', password: 'y', ttl: '60' }, 'ttl must be a whole number'],
  ['POST', '/v1/users/authorize', { username: 'x', password: 'y', ttl: 86401 }, 'ttl must be at most 86400'],
  ['POST', '/v1/users/authorize', [1, 2], 'the body must be a JSON object'],
  ['GET', '/v1/users/abc', undefined, 'uid must be a whole number up to 2147483647'],
  ['PUT', '/v1/users/password', { new_password: 'x'.repeat(2000) }, 'new_password must have at most 1024 characters'],
  ['PUT', '/v1/users/1', { name: 5 }, 'name must be a string or null'],
];

describe('a request that fails validation', () => {
  it.each(CASES)('%s %s %j → 400 naming the field and what it may be', async (method, url, body, expected) => {
    const res = await call(t, method, url, { auth: root, body });
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe('invalid_request');
    if (typeof expected === 'string') expect(res.body.message).toBe(expected);
    else expect(res.body.message).toMatch(expected);
    // Nothing of the schema's inner words reaches a person.
    expect(res.body.message).not.toMatch(/constant|anyOf|oneOf|pattern|additional properties|must NOT|body\/|params\//);
  });
});
