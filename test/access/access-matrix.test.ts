import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES } from '../../src/access/management.js';
import { isPermission, PERMISSIONS, permissionsByLevel } from '../../src/access/permissions.js';
import { call, login } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
const tokens = new Map<string, string>();
const uids = new Map<string, number>();
let operations: { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; path: string; access: string }[] = [];

beforeAll(async () => {
  t = await testTessera();
  for (const level of ROLES) {
    uids.set(level, await t.addUser(`user-${level}`, `password-of-${level}`, level));
    tokens.set(level, await login(t, `user-${level}`, `password-of-${level}`));
  }
  const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, { 'x-access'?: string }>>)) {
    for (const [method, op] of Object.entries(ops)) {
      operations.push({ method: method.toUpperCase() as 'GET', path, access: op['x-access'] ?? '(none)' });
    }
  }
  operations = operations.filter((o) => o.path.startsWith('/v1/'));
});
afterAll(() => t.close());

/** Ends of sessions end the tokens the other checks use: their own tests are in test/http/sessions.test.ts. */
const endsSessions = (o: { method: string; path: string }) => o.method === 'DELETE' && /sessions$/.test(o.path);

/** A request that cannot change anything that matters: unknown uids, empty bodies. */
const urlOf = (path: string) => path.replace('{uid}', '999999');
const bodyOf = (method: string) => (method === 'GET' || method === 'DELETE' ? undefined : {});

describe('who may do what, decided by the one permissions table', () => {
  it('every operation of the API declares what it needs', () => {
    expect(operations.length).toBeGreaterThan(20);
    for (const op of operations)
      expect([op.method, op.path, op.access]).toEqual([
        op.method,
        op.path,
        expect.stringMatching(/^(public|optional|token|caller|[a-z_]+)$/),
      ]);
    for (const op of operations)
      expect(['public', 'optional', 'token', 'caller'].includes(op.access) || isPermission(op.access)).toBe(true);
  });

  it('answers every permission-guarded operation × every management level as the table says (403 exactly when it does not hold)', async () => {
    const guarded = operations.filter((o) => isPermission(o.access) && !endsSessions(o));
    expect(guarded.length).toBeGreaterThan(15);
    const mismatches: string[] = [];
    for (const op of guarded) {
      for (const level of ROLES) {
        const res = await call(t, op.method, urlOf(op.path), { auth: tokens.get(level), body: bodyOf(op.method) });
        const allowed = (PERMISSIONS[op.access as keyof typeof PERMISSIONS] as readonly string[]).includes(level);
        const refused = res.status === 403 && res.body.error_code === 'forbidden';
        if (allowed === refused || res.status === 401 || res.status >= 500)
          mismatches.push(`${op.method} ${op.path} as ${level}: ${res.status} ${res.body?.error_code}`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('lets every signed-in level reach the operations that need only credentials (for itself), and refuses them without', async () => {
    // A logout ends the token the other checks use; their own tests are in revocation.test.ts and test/sso.
    const logouts = ['/v1/users/logout', '/v1/sso/logout'];
    for (const op of operations.filter(
      (o) => (o.access === 'caller' || o.access === 'token') && !logouts.includes(o.path) && !endsSessions(o),
    )) {
      for (const level of ROLES) {
        const own = op.path.replace('{uid}', String(uids.get(level)));
        const res = await call(t, op.method, own, { auth: tokens.get(level), body: bodyOf(op.method) });
        expect([
          op.path,
          level,
          res.status === 401 || (res.status === 403 && res.body.error_code === 'forbidden'),
        ]).toEqual([op.path, level, false]);
      }
      const none = await call(t, op.method, urlOf(op.path), { body: bodyOf(op.method) });
      expect([op.path, none.status]).toEqual([op.path, 401]);
    }
  });

  it("serves the same table at GET /v1/users/permissions, in the product's shape; one level at /{role}; the caller's own at /v1/users/role", async () => {
    const res = await call(t, 'GET', '/v1/users/permissions', { auth: tokens.get('db_viewer') });
    expect(res.status).toBe(200);
    const table = permissionsByLevel();
    expect(Object.keys(res.body).sort()).toEqual([...ROLES].sort());
    for (const level of ROLES) expect(res.body[level].api_permissions).toEqual(table[level]);
    expect(res.body.user_manager.api_permissions).toEqual(
      expect.arrayContaining(['create_new_user', 'update_role', 'view_all_users_info']),
    );
    // LDAP as the product's table has it, but the directory itself (config_ldap), which stays the admins'.
    expect(res.body.user_manager.api_permissions).toEqual(
      expect.arrayContaining([
        'view_ldap_config',
        'view_all_ldap_mappings_info',
        'view_ldap_mapping_info',
        'create_ldap_mapping',
        'update_ldap_mapping',
        'delete_ldap_mapping',
      ]),
    );
    expect(res.body.user_manager.api_permissions).not.toContain('config_ldap');
    expect(res.body.user_manager.ui_permissions).toEqual(
      expect.arrayContaining(['view_users_page', 'view_roles_page']),
    );
    expect(res.body.user_manager.ui_permissions).not.toContain('view_keys_page');
    expect(res.body.none).toEqual({ api_permissions: [], ui_permissions: ['change_own_password'] });
    const one = await call(t, 'GET', '/v1/users/permissions/admin', { auth: tokens.get('none') });
    expect([one.status, Object.keys(one.body)]).toEqual([200, ['admin']]);
    expect(one.body.admin).toEqual(res.body.admin);
    expect(
      (await call(t, 'GET', '/v1/users/permissions/superuser', { auth: tokens.get('admin') })).body.error_code,
    ).toBe('role_not_found');
    for (const level of ROLES)
      expect((await call(t, 'GET', '/v1/users/role', { auth: tokens.get(level) })).body).toEqual({ role: level });
    expect((await call(t, 'GET', '/v1/users/role', {})).status).toBe(401);
  });
});
