import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, login } from '../helpers/http.js';
import { type FaultProxy, proxyTo } from '../helpers/services.js';
import {
  BASE_DN,
  type Directory,
  directorySettings,
  group,
  groupDn,
  person,
  ROOT_DN,
  ROOT_PASSWORD,
  slapdAvailable,
  startDirectory,
} from '../helpers/slapd.mjs';
import { decodeJwt, type TestTessera, testTessera } from '../helpers/test-tessera.js';

const SEED =
  person('alice', 'alice-pw-1') +
  person('bob', 'bob-pw-1') +
  person('carol', 'carol-pw-1') +
  person('root', 'directory-root-of-people') +
  group('ops', ['alice']) +
  group('viewers', ['alice', 'bob']) +
  group('unmapped', ['carol']);

const TEMPLATE_SETTINGS = (url: string) => directorySettings(url, { cache_ttl: 60 });

/** LDAP logins against a real OpenLDAP server (Debian's slapd) started by the test. */
describe.skipIf(!slapdAvailable())('LDAP login (real slapd)', () => {
  let dir: Directory;
  let t: TestTessera;
  let admin: string;

  beforeAll(async () => {
    dir = await startDirectory(SEED);
  });
  afterAll(() => dir?.stop());

  beforeEach(async () => {
    t = await testTessera();
    await t.addUser('root', 'root-password', 'admin');
    admin = await login(t, 'root', 'root-password');
  });
  afterEach(() => t.close());

  async function configure(settings: Record<string, unknown> = TEMPLATE_SETTINGS(dir.url)) {
    const put = await call(t, 'PUT', '/v1/cluster/ldap', { auth: admin, body: settings });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const ops = await call(t, 'POST', '/v1/ldap_mappings', {
      auth: admin,
      body: { name: 'Ops', dn: groupDn('ops'), role_uids: [1] },
    });
    expect(ops.status, JSON.stringify(ops.body)).toBe(200);
    // The product's own examples send role uids as strings.
    const viewers = await call(t, 'POST', '/v1/ldap_mappings', {
      auth: admin,
      body: { name: 'Viewers', dn: groupDn('viewers').toUpperCase(), role_uids: ['3'] },
    });
    expect(viewers.status, JSON.stringify(viewers.body)).toBe(200);
  }

  it('logs a directory user in with both formats and with Basic on any route; its groups decide its roles', async () => {
    await configure();
    // 7.4 body
    const a = await call(t, 'POST', '/v1/users/authorize', { body: { username: 'alice', password: 'alice-pw-1' } });
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    const claims = decodeJwt(a.body.access_token).payload;
    expect(claims).toMatchObject({ username: 'alice', roles: ['admin', 'cluster_viewer'] });
    // 7.22 Basic header
    const b = await call(t, 'POST', '/v1/users/authorize', { auth: t.basic('bob', 'bob-pw-1'), body: { ttl: 120 } });
    expect(b.status).toBe(200);
    expect(decodeJwt(b.body.access_token).payload).toMatchObject({ username: 'bob', roles: ['cluster_viewer'] });
    // Basic on a route: alice may read the users (admin through "ops"), bob may not.
    expect((await call(t, 'GET', '/v1/users', { auth: t.basic('alice', 'alice-pw-1') })).status).toBe(200);
    expect((await call(t, 'GET', '/v1/users', { auth: t.basic('bob', 'bob-pw-1') })).status).toBe(403);
    // Its own user object, by its token; directory users are not in the users list.
    const uid = Number(decodeJwt(b.body.access_token).payload.uid);
    const own = await call(t, 'GET', `/v1/users/${uid}`, { auth: `JWT ${b.body.access_token}` });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ uid, name: 'bob', role: 'cluster_viewer', role_uids: [3] });
    const list = await call(t, 'GET', '/v1/users', { auth: admin });
    expect(list.body.map((u: { name: string }) => u.name)).toEqual(['root']);
    // Refresh reads the groups again; logout ends the token.
    const refreshed = await call(t, 'POST', '/v1/users/refresh_jwt', { auth: `JWT ${b.body.access_token}`, body: {} });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect((await call(t, 'POST', '/v1/users/logout', { auth: `JWT ${refreshed.body.access_token}` })).status).toBe(
      200,
    );
    expect((await call(t, 'GET', `/v1/users/${uid}`, { auth: `JWT ${refreshed.body.access_token}` })).status).toBe(401);
    // A directory user's password is the directory's to change.
    const change = await call(t, 'PUT', '/v1/users/password', {
      auth: t.basic('bob', 'bob-pw-1'),
      body: { new_password: 'Another-pw-123' },
    });
    expect(change.status).toBe(400);
    expect(change.body.error_code).toBe('directory_user');
  });

  it('answers a wrong password, an unknown name, a user in no mapped group, an empty password and injected names alike', async () => {
    await configure();
    const tries = [
      { username: 'alice', password: 'wrong' },
      { username: 'nobody', password: 'alice-pw-1' },
      { username: 'carol', password: 'carol-pw-1' },
      { username: '*', password: 'alice-pw-1' },
      { username: '*)(uid=*))(|(uid=*', password: 'alice-pw-1' },
      { username: 'alice,ou=people', password: 'alice-pw-1' },
      { username: 'alice\u0000', password: 'alice-pw-1' },
      { username: `x,${BASE_DN}`, password: ROOT_PASSWORD },
    ];
    for (const body of tries) {
      const res = await call(t, 'POST', '/v1/users/authorize', { body });
      expect(res.status, JSON.stringify(body)).toBe(401);
      expect(res.body).toEqual({ error_code: 'invalid_credentials', message: 'Invalid username or password' });
    }
    // An empty password never reaches the directory (where it would be an anonymous bind, which succeeds).
    expect((await call(t, 'POST', '/v1/users/authorize', { body: { username: 'alice', password: '' } })).status).toBe(
      400,
    );
    const basicEmpty = await call(t, 'POST', '/v1/users/authorize', { auth: t.basic('alice', '') });
    expect(basicEmpty.status).toBe(401);
    expect((await call(t, 'GET', '/v1/cluster', { auth: t.basic('alice', '') })).status).toBe(401);
  });

  it("takes at least a local refusal's time to refuse, whatever the directory said", async () => {
    // Real argon2id costs (OWASP's), so that a local refusal takes clearly longer than the directory's no.
    const real = await testTessera({ argon2: { memoryCost: 19_456, timeCost: 2, parallelism: 1 } });
    try {
      await real.addUser('root', 'root-password', 'admin');
      const root = await login(real, 'root', 'root-password');
      expect(
        (await call(real, 'PUT', '/v1/cluster/ldap', { auth: root, body: TEMPLATE_SETTINGS(dir.url) })).status,
      ).toBe(200);
      await call(real, 'POST', '/v1/ldap_mappings', {
        auth: root,
        body: { name: 'Ops', dn: groupDn('ops'), role_uids: [1] },
      });
      const budget = 2 * 1.25 * real.tessera.hasher.typicalMs; // failureBudgetMs: two verifications, with a margin
      for (const body of [
        { username: 'alice', password: 'wrong' },
        { username: 'nobody-anywhere', password: 'x' },
        { username: 'carol', password: 'carol-pw-1' },
      ]) {
        const started = performance.now();
        expect((await call(real, 'POST', '/v1/users/authorize', { body })).status).toBe(401);
        expect(performance.now() - started, JSON.stringify(body)).toBeGreaterThanOrEqual(budget * 0.95);
      }
    } finally {
      await real.close();
    }
  });

  it("lets a local user of the same name win (made before the directory was set; after, the name is the directory's)", async () => {
    await t.addUser('alice', 'local-alice-password', 'db_viewer');
    await configure();
    await expect(t.addUser('bob', 'local-bob-password', 'db_viewer')).rejects.toMatchObject({
      code: 'name_already_exists',
    });
    expect(
      (await call(t, 'POST', '/v1/users/authorize', { body: { username: 'alice', password: 'alice-pw-1' } })).status,
    ).toBe(401);
    const local = await call(t, 'POST', '/v1/users/authorize', {
      body: { username: 'alice', password: 'local-alice-password' },
    });
    expect(decodeJwt(local.body.access_token).payload.roles).toEqual(['db_viewer']);
  });

  it('takes a user out of a group within cache_ttl, and ends its tokens', async () => {
    await configure();
    const token = await login(t, 'alice', 'alice-pw-1');
    expect((await call(t, 'GET', '/v1/users', { auth: t.basic('alice', 'alice-pw-1') })).status).toBe(200);
    await dir.modify(
      `dn: ${groupDn('ops')}\nchangetype: modify\ndelete: member\nmember: uid=alice,ou=people,${BASE_DN}\n\n`,
    );
    // Within cache_ttl the remembered answer stands; past it the directory is asked again.
    expect((await call(t, 'GET', '/v1/users', { auth: t.basic('alice', 'alice-pw-1') })).status).toBe(200);
    t.advance(61);
    expect((await call(t, 'GET', '/v1/users', { auth: t.basic('alice', 'alice-pw-1') })).status).toBe(403);
    // Its roles changed: the token issued with the old ones is over.
    expect((await call(t, 'GET', '/v1/users/permissions', { auth: token })).status).toBe(401);
    const again = await login(t, 'alice', 'alice-pw-1');
    expect(decodeJwt(again.slice(4)).payload.roles).toEqual(['cluster_viewer']);
    await dir.modify(
      `dn: ${groupDn('ops')}\nchangetype: modify\nadd: member\nmember: uid=alice,ou=people,${BASE_DN}\n\n`,
    );
  });

  it('keeps a role that a mapping gives; once the mapping is gone the role goes, and the tokens made with it', async () => {
    await configure();
    const role = await call(t, 'POST', '/v1/roles', {
      auth: admin,
      body: { name: 'Directory DBAs', management: 'db_member' },
    });
    const mapping = await call(t, 'POST', '/v1/ldap_mappings', {
      auth: admin,
      body: { name: 'DBAs', dn: groupDn('viewers'), role_uids: [role.body.uid] },
    });
    const token = await login(t, 'bob', 'bob-pw-1');
    expect(decodeJwt(token.slice(4)).payload.roles).toEqual(['cluster_viewer', 'db_member']);
    // A change that gives nobody other roles (its name, its email) ends no directory user's tokens.
    const renamed = await call(t, 'PUT', `/v1/ldap_mappings/${mapping.body.uid}`, {
      auth: admin,
      body: { name: 'Database admins', email: 'dbas@example.com' },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect((await call(t, 'GET', '/v1/cluster', { auth: token })).status).toBe(200);
    const inUse = await call(t, 'DELETE', `/v1/roles/${role.body.uid}`, { auth: admin });
    expect([inUse.status, inUse.body.error_code]).toEqual([406, 'role_in_use']);
    expect(inUse.body.message).toMatch(/1 LDAP mapping/);
    expect((await call(t, 'DELETE', `/v1/ldap_mappings/${mapping.body.uid}`, { auth: admin })).status).toBe(200);
    expect((await call(t, 'DELETE', `/v1/roles/${role.body.uid}`, { auth: admin })).status).toBe(200);
    expect((await call(t, 'GET', '/v1/cluster', { auth: token })).status).toBe(401);
    expect(decodeJwt((await login(t, 'bob', 'bob-pw-1')).slice(4)).payload.roles).toEqual(['cluster_viewer']);
  });

  it("logs a directory user in with the roles of a mapping a user_manager made (the directory an admin's)", async () => {
    const put = await call(t, 'PUT', '/v1/cluster/ldap', { auth: admin, body: TEMPLATE_SETTINGS(dir.url) });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    await t.addUser('manager', 'manager-password', 'user_manager');
    const manager = await login(t, 'manager', 'manager-password');
    // carol's only group, "unmapped", is unmapped: no login yet.
    expect(
      (await call(t, 'POST', '/v1/users/authorize', { body: { username: 'carol', password: 'carol-pw-1' } })).status,
    ).toBe(401);
    const refused = await call(t, 'POST', '/v1/ldap_mappings', {
      auth: manager,
      body: { name: 'Unmapped admins', dn: groupDn('unmapped'), role_uids: [1] },
    });
    expect([refused.status, refused.body.error_code]).toEqual([403, 'unauthorized_action']);
    const made = await call(t, 'POST', '/v1/ldap_mappings', {
      auth: manager,
      body: { name: 'Unmapped members', dn: groupDn('unmapped'), role_uids: [2] },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const carol = await call(t, 'POST', '/v1/users/authorize', {
      body: { username: 'carol', password: 'carol-pw-1' },
    });
    expect(carol.status, JSON.stringify(carol.body)).toBe(200);
    expect(decodeJwt(carol.body.access_token).payload).toMatchObject({ username: 'carol', roles: ['cluster_member'] });
  });

  it('finds users and groups by search (user_dn_query, dn_group_query)', async () => {
    await configure({
      uris: [dir.url],
      bind_dn: ROOT_DN,
      bind_pass: ROOT_PASSWORD,
      user_dn_query: {
        base: `ou=people,${BASE_DN}`,
        filter: '(&(objectClass=inetOrgPerson)(uid=%u))',
        scope: 'subtree',
      },
      dn_group_query: {
        base: `ou=groups,${BASE_DN}`,
        filter: '(&(objectClass=groupOfNames)(member=%D))',
        scope: 'one',
      },
      control_plane: true,
    });
    const got = await call(t, 'GET', '/v1/cluster/ldap', { auth: admin });
    expect(got.body).toMatchObject({ user_dn_template: '', dn_group_attr: '', bind_pass: '***' });
    const a = await call(t, 'POST', '/v1/users/authorize', { body: { username: 'alice', password: 'alice-pw-1' } });
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(decodeJwt(a.body.access_token).payload.roles).toEqual(['admin', 'cluster_viewer']);
    // Names that would widen the filter find no one: unescaped, "ali*" would find alice alone and log in with her password.
    for (const username of ['*', 'ali*', 'alice)(uid=*', '*)(|(uid=alice']) {
      expect(
        (await call(t, 'POST', '/v1/users/authorize', { body: { username, password: 'alice-pw-1' } })).status,
        username,
      ).toBe(401);
    }
  });

  it('answers 503 within the login deadline when the directory refuses or never answers, and recovers without a restart', async () => {
    const proxy: FaultProxy = await proxyTo(dir.url);
    try {
      await configure({ ...TEMPLATE_SETTINGS(proxy.url), cache_ttl: 0 });
      // Two failures would lock bob: the two outages below must not count as failures.
      expect(
        (await call(t, 'PUT', '/v1/cluster/policy', { auth: admin, body: { login_lockout_threshold: 2 } })).status,
      ).toBe(200);
      expect(
        (await call(t, 'POST', '/v1/users/authorize', { body: { username: 'bob', password: 'bob-pw-1' } })).status,
      ).toBe(200);
      await proxy.cut();
      let started = performance.now();
      const refused = await call(t, 'POST', '/v1/users/authorize', { body: { username: 'bob', password: 'bob-pw-1' } });
      expect(refused.status).toBe(503);
      expect(refused.body.error_code).toBe('directory_unavailable');
      expect(refused.headers['retry-after']).toBeDefined();
      expect(performance.now() - started).toBeLessThan(3500);
      await proxy.restore();
      proxy.partition();
      started = performance.now();
      const silent = await call(t, 'POST', '/v1/users/authorize', { body: { username: 'bob', password: 'bob-pw-1' } });
      expect(silent.status).toBe(503);
      // The login deadline (3 s by default), not directory_timeout_s (5 s), bounds it.
      expect(performance.now() - started).toBeLessThan(4500);
      await proxy.restore();
      expect(
        (await call(t, 'POST', '/v1/users/authorize', { body: { username: 'bob', password: 'bob-pw-1' } })).status,
      ).toBe(200);
      // An outage is never counted as a failure: the login above was not locked out, though two
      // real failures do lock bob at this threshold.
      for (const wrong of ['wrong-1', 'wrong-2'])
        expect(
          (await call(t, 'POST', '/v1/users/authorize', { body: { username: 'bob', password: wrong } })).status,
        ).toBe(401);
      const locked = await call(t, 'POST', '/v1/users/authorize', { body: { username: 'bob', password: 'bob-pw-1' } });
      expect([locked.status, locked.body.error_code]).toEqual([401, 'account_locked']);
    } finally {
      await call(t, 'PUT', '/v1/cluster/policy', { auth: admin, body: { login_lockout_threshold: 5 } });
      await proxy.close();
    }
  });
});
