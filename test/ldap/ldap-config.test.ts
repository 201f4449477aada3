import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, login } from '../helpers/http.js';
import {
  BASE_DN,
  type Directory,
  directorySettings,
  group,
  groupDn,
  person,
  ROOT_PASSWORD,
  slapdAvailable,
  startDirectory,
} from '../helpers/slapd.mjs';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

/** GET/PUT/DELETE /v1/cluster/ldap and /v1/ldap_mappings, against a real slapd. */
describe.skipIf(!slapdAvailable())('LDAP configuration and mappings', () => {
  let dir: Directory;
  let t: TestTessera;
  let admin: string;
  let logged: string;
  const masterKey = randomBytes(32).toString('base64');

  beforeAll(async () => {
    dir = await startDirectory(person('alice', 'alice-pw-1') + group('ops', ['alice']));
  });
  afterAll(() => dir?.stop());
  beforeEach(async () => {
    logged = '';
    const sink = new Writable({
      write: (chunk, _enc, done) => {
        logged += chunk;
        done();
      },
    });
    t = await testTessera({ masterKey }, { logger: pino({ level: 'debug' }, sink) });
    await t.addUser('root', 'root-password', 'admin');
    await t.addUser('viewer', 'viewer-password', 'cluster_viewer');
    admin = await login(t, 'root', 'root-password');
  });
  afterEach(() => t.close());

  const good = () => directorySettings(dir.url);

  it("starts empty with the product's defaults, and who does not manage users neither sees nor sets it", async () => {
    const got = await call(t, 'GET', '/v1/cluster/ldap', { auth: admin });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      uris: [],
      starttls: false,
      ca_cert: '',
      bind_dn: '',
      bind_pass: '',
      user_dn_template: '',
      user_dn_query: {},
      dn_group_attr: '',
      dn_group_query: {},
      cache_ttl: 300,
      directory_timeout_s: 5,
      control_plane: false,
      data_plane: false,
      cba: false,
      cba_identity_source: 'subject_cn',
      cba_identity_oid: '',
    });
    const viewer = await login(t, 'viewer', 'viewer-password');
    expect((await call(t, 'GET', '/v1/cluster/ldap', { auth: viewer })).status).toBe(403);
    expect((await call(t, 'PUT', '/v1/cluster/ldap', { auth: viewer, body: good() })).status).toBe(403);
    expect((await call(t, 'GET', '/v1/ldap_mappings', { auth: viewer })).status).toBe(403);
  });

  it('stores settings that bind, masks bind_pass, seals it at rest and never logs it', async () => {
    const put = await call(t, 'PUT', '/v1/cluster/ldap', { auth: admin, body: good() });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.bind_pass).toBe('***');
    const got = await call(t, 'GET', '/v1/cluster/ldap', { auth: admin });
    expect(got.body).toMatchObject({ ...good(), bind_pass: '***' });
    // Sending the mask back (a GET-modify-PUT client) keeps the password.
    const again = await call(t, 'PUT', '/v1/cluster/ldap', { auth: admin, body: { ...got.body, cache_ttl: 30 } });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect((await call(t, 'POST', '/v1/users/authorize', { auth: t.basic('alice', 'alice-pw-1') })).status).toBe(401); // no mapping yet
    const file = readFileSync(path.join(t.dataDir, 'tessera.db'));
    expect(file.includes(Buffer.from(ROOT_PASSWORD))).toBe(false);
    expect(logged).not.toContain(ROOT_PASSWORD);
    expect(logged).toContain('"audit":"ldap_config_update"');
  });

  it("refuses settings that cannot bind, with the directory's reason, and keeps what was set", async () => {
    const wrongPass = await call(t, 'PUT', '/v1/cluster/ldap', {
      auth: admin,
      body: { ...good(), bind_pass: 'not-it' },
    });
    expect(wrongPass.status).toBe(400);
    expect(wrongPass.body.error_code).toBe('ldap_connection_failed');
    expect(wrongPass.body.message).toMatch(/^The LDAP directory refused these settings: .*invalid credentials/i);
    expect(wrongPass.body.message).not.toContain('not-it');
    const nobody = await call(t, 'PUT', '/v1/cluster/ldap', {
      auth: admin,
      body: { ...good(), uris: ['ldap://127.0.0.1:1'] },
    });
    expect(nobody.status).toBe(400);
    expect(nobody.body.error_code).toBe('ldap_connection_failed');
    // Nobody there is told apart from a directory that refused.
    expect(nobody.body.message).toMatch(/^Could not connect to an LDAP directory at these uris: .*ECONNREFUSED/);
    expect((await call(t, 'GET', '/v1/cluster/ldap', { auth: admin })).body.uris).toEqual([]);
  });

  it('refuses fields that exclude or need each other with illegal_fields_combination', async () => {
    const cases: Record<string, unknown>[] = [
      { ...good(), user_dn_query: { base: BASE_DN, filter: '(uid=%u)', scope: 'subtree' } },
      { ...good(), dn_group_query: { base: BASE_DN, filter: '(member=%D)', scope: 'subtree' } },
      { ...good(), user_dn_template: 'uid=alice,ou=people' },
      { ...good(), uris: [] },
      { ...good(), dn_group_attr: '' },
      { ...good(), bind_dn: '', bind_pass: 'x' },
      { ...good(), starttls: true, uris: ['ldaps://127.0.0.1:636'] },
      // A plain server after a TLS one would get the passwords in the clear once TLS is made to fail.
      { ...good(), uris: ['ldaps://127.0.0.1:636', dir.url] },
    ];
    for (const body of cases) {
      const res = await call(t, 'PUT', '/v1/cluster/ldap', { auth: admin, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error_code, JSON.stringify(res.body)).toBe('illegal_fields_combination');
    }
    for (const body of [
      { uris: ['http://x'] },
      { uris: ['ldap://h:389/dc=x'] },
      { directory_timeout_s: 2 },
      { cache_ttl: -1 },
      { ca_cert: 'not a pem' },
      { surprise: 1 },
    ]) {
      const res = await call(t, 'PUT', '/v1/cluster/ldap', { auth: admin, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error_code).toBe('invalid_request');
    }
  });

  it('sends the stored bind_pass to no new place: a change of uris, bind_dn, starttls or ca_cert needs it again', async () => {
    expect((await call(t, 'PUT', '/v1/cluster/ldap', { auth: admin, body: good() })).status).toBe(200);
    // A listener of the caller's choosing, that records whatever reaches it.
    const received: Buffer[] = [];
    const connections: net.Socket[] = [];
    const listener = net.createServer((s) => {
      connections.push(s);
      s.on('data', (d) => received.push(d));
      s.on('error', () => {});
    });
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
    try {
      const elsewhere = `ldap://127.0.0.1:${(listener.address() as net.AddressInfo).port}`;
      for (const body of [
        { uris: [elsewhere] },
        { uris: [elsewhere], bind_pass: '***' },
        { bind_dn: 'cn=someone,dc=example,dc=org' },
        { starttls: true },
      ]) {
        const res = await call(t, 'PUT', '/v1/cluster/ldap', { auth: admin, body });
        expect([res.status, res.body.error_code], JSON.stringify(body)).toEqual([400, 'missing_field']);
        expect(res.body.message).toMatch(/bind_pass/);
      }
      expect(connections).toHaveLength(0);
      expect(Buffer.concat(received).includes(ROOT_PASSWORD)).toBe(false);
      // What does not move the password needs nothing more.
      expect((await call(t, 'PUT', '/v1/cluster/ldap', { auth: admin, body: { cache_ttl: 60 } })).status).toBe(200);
    } finally {
      for (const c of connections) c.destroy();
      await new Promise((r) => listener.close(r));
    }
  });

  it('clears the configuration: LDAP logins end, and their tokens with them', async () => {
    await call(t, 'PUT', '/v1/cluster/ldap', { auth: admin, body: good() });
    await call(t, 'POST', '/v1/ldap_mappings', {
      auth: admin,
      body: { name: 'Ops', dn: groupDn('ops'), role_uids: [3] },
    });
    const token = await login(t, 'alice', 'alice-pw-1');
    // The audit line and the metrics say where the user proved who it is.
    expect(logged).toMatch(
      /"audit":"authorize","outcome":"success","actor_uid":(\d+),"actor":"alice","uid":\1,"username":"alice","realm":"ldap"/,
    );
    expect(await t.tessera.metrics.registry.metrics()).toMatch(/tessera_ldap_checks_total\{outcome="success"\} 1/);
    expect((await call(t, 'DELETE', '/v1/cluster/ldap', { auth: admin })).status).toBe(200);
    expect((await call(t, 'GET', '/v1/cluster/ldap', { auth: admin })).body.uris).toEqual([]);
    expect((await call(t, 'GET', '/v1/cluster', { auth: token })).status).toBe(401);
    expect(
      (await call(t, 'POST', '/v1/users/authorize', { body: { username: 'alice', password: 'alice-pw-1' } })).status,
    ).toBe(401);
  });

  it("manages mappings with the product's codes", async () => {
    const created = await call(t, 'POST', '/v1/ldap_mappings', {
      auth: admin,
      body: { name: 'Admins', dn: 'OU=ops.group,DC=example,DC=org', email: 'ops@example.org', role_uids: ['1'] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toEqual({
      uid: expect.any(Number),
      name: 'Admins',
      dn: 'OU=ops.group,DC=example,DC=org',
      email: 'ops@example.org',
      role_uids: [1],
      email_alerts: true,
      cluster_email_alerts: false,
    });
    const uid = created.body.uid;
    expect((await call(t, 'GET', `/v1/ldap_mappings/${uid}`, { auth: admin })).body).toEqual(created.body);
    expect((await call(t, 'GET', '/v1/ldap_mappings', { auth: admin })).body).toEqual([created.body]);
    const codes = async (method: 'POST' | 'PUT', url: string, body: unknown) =>
      (await call(t, method, url, { auth: admin, body })).body.error_code;
    expect(await codes('POST', '/v1/ldap_mappings', { name: 'admins', dn: 'cn=x,dc=y', role_uids: [1] })).toBe(
      'name_already_exists',
    );
    expect(await codes('POST', '/v1/ldap_mappings', { dn: 'cn=x,dc=y', role_uids: [1] })).toBe('missing_field');
    expect(await codes('POST', '/v1/ldap_mappings', { name: 'X', dn: 'not a dn', role_uids: [1] })).toBe(
      'invalid_dn_param',
    );
    expect(await codes('POST', '/v1/ldap_mappings', { name: 'X', dn: 'cn=x,dc=y', role_uids: [999] })).toBe(
      'invalid_role_uids_param',
    );
    expect(await codes('POST', '/v1/ldap_mappings', { name: 'X', dn: 'cn=x,dc=y', role_uids: [] })).toBe(
      'invalid_role_uids_param',
    );
    expect(await codes('POST', '/v1/ldap_mappings', { name: 'a:b', dn: 'cn=x,dc=y', role_uids: [1] })).toBe(
      'invalid_name_param',
    );
    const updated = await call(t, 'PUT', `/v1/ldap_mappings/${uid}`, {
      auth: admin,
      body: { dn: 'OU=ops,DC=example,DC=org', cluster_email_alerts: true },
    });
    expect(updated.body).toMatchObject({
      uid,
      name: 'Admins',
      dn: 'OU=ops,DC=example,DC=org',
      cluster_email_alerts: true,
      role_uids: [1],
    });
    expect(await codes('PUT', '/v1/ldap_mappings/9999', { dn: 'cn=x,dc=y' })).toBe('ldap_mapping_not_exist');
    expect((await call(t, 'DELETE', `/v1/ldap_mappings/${uid}`, { auth: admin })).status).toBe(200);
    const gone = await call(t, 'GET', `/v1/ldap_mappings/${uid}`, { auth: admin });
    expect([gone.status, gone.body.error_code]).toEqual([404, 'ldap_mapping_not_exist']);
  });

  it('lets a user_manager see the configuration (bind_pass masked) and manage mappings to the roles it may grant: never an admin one, nor the directory itself', async () => {
    await t.addUser('manager', 'manager-password', 'user_manager');
    const manager = await login(t, 'manager', 'manager-password');
    expect((await call(t, 'PUT', '/v1/cluster/ldap', { auth: admin, body: good() })).status).toBe(200);
    const seen = await call(t, 'GET', '/v1/cluster/ldap', { auth: manager });
    expect(seen.status).toBe(200);
    expect(seen.body).toMatchObject({ ...good(), bind_pass: '***' });
    expect(JSON.stringify(seen.body)).not.toContain(ROOT_PASSWORD);
    // The directory itself stays the admins': where logins are proven, and whose groups count.
    for (const [method, body] of [
      ['PUT', { ...good(), uris: ['ldap://elsewhere.example:389'] }],
      ['DELETE', undefined],
    ] as const) {
      const refused = await call(t, method, '/v1/cluster/ldap', { auth: manager, body });
      expect([refused.status, refused.body.error_code]).toEqual([403, 'forbidden']);
    }
    expect((await call(t, 'GET', '/v1/cluster/ldap', { auth: admin })).body).toMatchObject({ uris: [dir.url] });

    const admins = await call(t, 'POST', '/v1/ldap_mappings', {
      auth: admin,
      body: { name: 'Admins', dn: 'cn=admins,ou=groups,dc=example,dc=org', role_uids: [1] },
    });
    const members = await call(t, 'POST', '/v1/ldap_mappings', {
      auth: manager,
      body: { name: 'Members', dn: groupDn('ops'), role_uids: ['2'] },
    });
    expect(members.status, JSON.stringify(members.body)).toBe(200);
    expect(members.body).toMatchObject({ name: 'Members', role_uids: [2] });
    const listed = await call(t, 'GET', '/v1/ldap_mappings', { auth: manager });
    expect([listed.status, listed.body.map((m: { name: string }) => m.name).sort()]).toEqual([
      200,
      ['Admins', 'Members'],
    ]);
    expect((await call(t, 'GET', `/v1/ldap_mappings/${admins.body.uid}`, { auth: manager })).body).toEqual(admins.body);

    const adminRole = await call(t, 'POST', '/v1/roles', {
      auth: admin,
      body: { name: 'Ops admins', management: 'admin' },
    });
    expect(adminRole.status).toBe(200);
    const forbidden = async (method: 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) => {
      const res = await call(t, method, url, { auth: manager, body });
      expect([method, url, res.status, res.body.error_code]).toEqual([method, url, 403, 'unauthorized_action']);
    };
    // No mapping to a role of admin management, the built-in one or another, alone or with others.
    await forbidden('POST', '/v1/ldap_mappings', { name: 'Up', dn: 'cn=up,dc=example,dc=org', role_uids: [1] });
    await forbidden('POST', '/v1/ldap_mappings', {
      name: 'Up',
      dn: 'cn=up,dc=example,dc=org',
      role_uids: [2, adminRole.body.uid],
    });
    await forbidden('PUT', `/v1/ldap_mappings/${members.body.uid}`, { role_uids: [2, 1] });
    // An admin's mapping is not the user_manager's to change, even a field that gives nothing, nor to delete.
    await forbidden('PUT', `/v1/ldap_mappings/${admins.body.uid}`, { dn: groupDn('ops') });
    await forbidden('PUT', `/v1/ldap_mappings/${admins.body.uid}`, { email_alerts: false });
    await forbidden('PUT', `/v1/ldap_mappings/${admins.body.uid}`, { role_uids: [2] });
    await forbidden('DELETE', `/v1/ldap_mappings/${admins.body.uid}`);
    expect((await call(t, 'GET', '/v1/ldap_mappings', { auth: admin })).body).toEqual(
      expect.arrayContaining([admins.body, members.body]),
    );
    expect((await call(t, 'GET', '/v1/ldap_mappings', { auth: admin })).body).toHaveLength(2);
    // Its own kind it changes and deletes: a user_manager grants user_manager (7) as it may to a user.
    const changed = await call(t, 'PUT', `/v1/ldap_mappings/${members.body.uid}`, {
      auth: manager,
      body: { role_uids: [3, 7] },
    });
    expect([changed.status, changed.body.role_uids]).toEqual([200, [3, 7]]);
    expect((await call(t, 'DELETE', `/v1/ldap_mappings/${members.body.uid}`, { auth: manager })).status).toBe(200);
    expect(logged).toMatch(
      /"audit":"ldap_mapping_delete"[^\n]*"actor":"manager"|"actor":"manager"[^\n]*"audit":"ldap_mapping_delete"/,
    );
  });
});
