import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DOMParser } from '@xmldom/xmldom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCa } from '../helpers/certificates.js';
import { selfSigned } from '../helpers/simplesamlphp.js';
import {
  BASE_DN,
  type Directory,
  person,
  ROOT_DN,
  ROOT_PASSWORD,
  slapdAvailable,
  startDirectory,
} from '../helpers/slapd.mjs';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

/**
 * docs/product-requests.md, row by row: each request in scope is sent as the product's REST
 * reference writes its example (method, path, query, body; a placeholder replaced only where it
 * must name something real here), and its answer is checked against what the reference says it
 * answers, or, for an "in part" or "no" row, against the difference the row states. The last
 * test reads the document: every row in scope has its case here, and the counts it states are
 * those of its rows.
 */

const DOCUMENT = readFileSync(path.join(import.meta.dirname, '../../docs/product-requests.md'), 'utf8');
const tested = new Set<string>();
/** One case per row of the document, named as its request is (`METHOD /path`). */
const row = (request: string, fn: () => Promise<void>) => {
  tested.add(request);
  it(request, fn);
};

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
async function send(t: TestTessera, method: Method, url: string, auth: string, body?: unknown) {
  const res = await t.app.inject({
    method,
    url,
    headers: {
      authorization: auth,
      accept: 'application/json',
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { payload: JSON.stringify(body) }),
  });
  let json: any;
  try {
    json = res.body ? JSON.parse(res.body) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, body: json, text: res.body, headers: res.headers };
}

const ISO_Z = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
/** The user object's fields in the docs' examples, with their types. */
const USER_FIELDS = {
  uid: expect.any(Number),
  password_issue_date: expect.stringMatching(ISO_Z),
  email: expect.any(String),
  name: expect.any(String),
  email_alerts: expect.any(Boolean),
  role: expect.any(String),
  auth_method: expect.any(String),
};

describe('users, roles, passwords, tokens, permissions, the event log, cluster settings and certificates', () => {
  let t: TestTessera;
  let root: string;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tessera-product-requests-'));
    t = await testTessera();
    await t.addUser('root', 'root-password', 'admin');
    root = t.basic('root', 'root-password');
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // users/_index.md
  row('GET /v1/users', async () => {
    const res = await send(t, 'GET', '/v1/users', root);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(expect.arrayContaining([expect.objectContaining({ ...USER_FIELDS, status: 'active' })]));
  });

  row('GET /v1/users/{uid}', async () => {
    const res = await send(t, 'GET', '/v1/users/1', root);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ...USER_FIELDS, uid: 1, status: 'active' });
  });

  let created: number;
  row('POST /v1/users', async () => {
    const res = await send(t, 'POST', '/v1/users', root, {
      email: 'newuser@example.com',
      password: 'my-password',
      name: 'Pat Doe',
      email_alerts: true,
      bdbs_email_alerts: ['1', '2'],
      role_uids: [3, 4],
      auth_method: 'regular',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      ...USER_FIELDS,
      email: 'newuser@example.com',
      name: 'Pat Doe',
      email_alerts: true,
      bdbs_email_alerts: ['1', '2'],
      role_uids: [3, 4],
      auth_method: 'regular',
    });
    created = res.body.uid;
  });

  row('PUT /v1/users/{uid}', async () => {
    // The docs' uid 1 is the only admin here; the example's role change is made to the user just created.
    const res = await send(t, 'PUT', `/v1/users/${created}`, root, { email_alerts: false, role_uids: [2, 4] });
    expect(res.status, res.text).toBe(200);
    // "Any user can change their own name": not in Tessera (a name is a login).
    const viewer = await t.addUser('viewer', 'viewer-password');
    const ownName = await send(t, 'PUT', `/v1/users/${viewer}`, t.basic('viewer', 'viewer-password'), { name: 'Vic' });
    expect([ownName.status, ownName.body.error_code]).toEqual([403, 'unauthorized_action']);
    expect(res.body).toMatchObject({
      ...USER_FIELDS,
      uid: created,
      email: 'newuser@example.com',
      name: 'Pat Doe',
      email_alerts: false,
      role_uids: [2, 4],
      auth_method: 'regular',
    });
  });

  // users/password.md, with Basic credentials as the docs' cURL examples send them
  row('PUT /v1/users/password', async () => {
    await t.addUser('pat', 'pat-password-1');
    const res = await send(t, 'PUT', '/v1/users/password', t.basic('pat', 'pat-password-1'), {
      username: 'pat',
      new_password: 'the new (single) password',
    });
    expect(res.status, res.text).toBe(200);
  });

  row('POST /v1/users/password', async () => {
    const res = await send(t, 'POST', '/v1/users/password', t.basic('pat', 'the new (single) password'), {
      username: 'pat',
      new_password: 'a password to add',
    });
    expect(res.status, res.text).toBe(200);
  });

  row('DELETE /v1/users/password', async () => {
    const res = await send(t, 'DELETE', '/v1/users/password', t.basic('pat', 'the new (single) password'), {
      username: 'pat',
      old_password: 'a password to add',
    });
    expect(res.status, res.text).toBe(200);
    const gone = await send(t, 'POST', '/v1/users/authorize', t.basic('pat', 'a password to add'));
    expect(gone.status).toBe(401);
  });

  // users/authorize.md, users/refresh_jwt.md
  let token: string;
  row('POST /v1/users/authorize', async () => {
    const res = await send(t, 'POST', '/v1/users/authorize', t.basic('pat', 'the new (single) password'), {
      ttl: 300,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ access_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/) });
    token = res.body.access_token;
  });

  row('POST /v1/users/refresh_jwt', async () => {
    const res = await send(t, 'POST', '/v1/users/refresh_jwt', `JWT ${token}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ access_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/) });
  });

  // OpenAPI only: /v1/users/permissions, /v1/users/permissions/{role}, /v1/users/role
  const rolePermissions = { api_permissions: expect.any(Array), ui_permissions: expect.any(Array) };
  row('GET /v1/users/permissions', async () => {
    const res = await send(t, 'GET', '/v1/users/permissions', root);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ admin: rolePermissions, db_viewer: rolePermissions });
    expect(res.body.admin.api_permissions).toEqual(expect.arrayContaining(['create_new_user']));
  });

  row('GET /v1/users/permissions/{role}', async () => {
    const res = await send(t, 'GET', '/v1/users/permissions/admin', root);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ admin: rolePermissions });
  });

  row('GET /v1/users/role', async () => {
    const res = await send(t, 'GET', '/v1/users/role', root);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ role: 'admin' });
  });

  row('DELETE /v1/users/{uid}', async () => {
    const res = await send(t, 'DELETE', `/v1/users/${created}`, root);
    expect(res.status, res.text).toBe(200);
    expect((await send(t, 'GET', `/v1/users/${created}`, root)).status).toBe(404);
  });

  // roles/_index.md
  row('GET /v1/roles', async () => {
    const res = await send(t, 'GET', '/v1/roles', root);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(
      expect.arrayContaining([
        { uid: 1, name: 'Admin', management: 'admin' },
        { uid: 2, name: 'Cluster Member', management: 'cluster_member' },
        { uid: 3, name: 'Cluster Viewer', management: 'cluster_viewer' },
        { uid: 4, name: 'DB Member', management: 'db_member' },
        { uid: 5, name: 'DB Viewer', management: 'db_viewer' },
        { uid: 6, name: 'None', management: 'none' },
      ]),
    );
  });

  row('GET /v1/roles/{uid}', async () => {
    const res = await send(t, 'GET', '/v1/roles/1', root);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ uid: 1, name: expect.any(String), management: 'admin' });
  });

  let dba: number;
  row('POST /v1/roles', async () => {
    const res = await send(t, 'POST', '/v1/roles', root, { name: 'DBA', management: 'admin' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ uid: expect.any(Number), name: 'DBA', management: 'admin' });
    dba = res.body.uid;
  });

  row('PUT /v1/roles/{uid}', async () => {
    const res = await send(t, 'PUT', `/v1/roles/${dba}`, root, { management: 'cluster_member' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ uid: dba, name: 'DBA', management: 'cluster_member' });
  });

  row('DELETE /v1/roles/{uid}', async () => {
    // The docs' example deletes uid 1, a built-in role: Tessera keeps those (406).
    const builtIn = await send(t, 'DELETE', '/v1/roles/1', root);
    expect([builtIn.status, builtIn.body.error_code]).toEqual([406, 'delete_builtin_role_not_allowed']);
    const own = await send(t, 'DELETE', `/v1/roles/${dba}`, root);
    expect(own.status, own.text).toBe(200);
  });

  // logs/_index.md
  row('GET /v1/logs', async () => {
    const res = await send(t, 'GET', '/v1/logs?order=desc', root);
    expect(res.status).toBe(200);
    expect(res.body.length).toBeGreaterThan(0);
    for (const event of res.body)
      expect(event).toMatchObject({
        time: expect.stringMatching(ISO_Z),
        type: expect.any(String),
        severity: expect.stringMatching(/^(INFO|WARNING|ERROR|CRITICAL)$/),
      });
    const times = res.body.map((e: { time: string }) => e.time);
    expect(times).toEqual([...times].sort().reverse());
  });

  // cluster/_index.md
  row('GET /v1/cluster', async () => {
    const res = await send(t, 'GET', '/v1/cluster', root);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: expect.any(String),
      alert_settings: expect.any(Object),
      created_time: expect.stringMatching(ISO_Z),
      email_alerts: false,
      email_from: '',
      rack_aware: false,
      smtp_host: '',
      smtp_password: '',
      smtp_port: 25,
      smtp_tls_mode: 'none',
      smtp_username: '',
    });
  });

  row('PUT /v1/cluster', async () => {
    const example = {
      email_alerts: true,
      alert_settings: { node_failed: true, node_memory: { enabled: true, threshold: '80' } },
    };
    const res = await send(t, 'PUT', '/v1/cluster', root, example);
    expect([res.status, res.body]).toEqual([200, expect.objectContaining({ name: expect.any(String), ...example })]);
    expect((await send(t, 'GET', '/v1/cluster', root)).body).toMatchObject(example);
  });

  row('PATCH /v1/cluster/change_password_hashing_algorithm', async () => {
    const res = await send(t, 'PATCH', '/v1/cluster/change_password_hashing_algorithm', root, {
      algorithm: 'PBKDF2',
    });
    expect(res.status, res.text).toBe(200);
    const again = await send(t, 'PATCH', '/v1/cluster/change_password_hashing_algorithm', root, {
      algorithm: 'PBKDF2',
    });
    expect(again.status).toBe(400);
  });

  // cluster/policy.md
  row('GET /v1/cluster/policy', async () => {
    const res = await send(t, 'GET', '/v1/cluster/policy', root);
    expect(res.status).toBe(200);
    // The example less default_provisioned_redis_version: a cluster's state (no default in the reference), absent here.
    expect(res.body).toMatchObject({
      db_conns_auditing: false,
      default_non_sharded_proxy_policy: 'single',
      default_sharded_proxy_policy: 'single',
      default_shards_placement: 'dense',
      redis_upgrade_policy: 'major',
    });
  });

  row('PUT /v1/cluster/policy', async () => {
    const example = { default_shards_placement: 'sparse', default_sharded_proxy_policy: 'all-nodes' };
    const res = await send(t, 'PUT', '/v1/cluster/policy', root, example);
    expect(res.status).toBe(200);
    expect((await send(t, 'GET', '/v1/cluster/policy', root)).body).toMatchObject(example);
  });

  // cluster/certificates/_index.md, cluster/certificates/rotate.md
  /** A body of the docs' PUT example shape: [name, certificate, key?] each. */
  const certificates = (...given: [string, string, string?][]) => ({
    certificates: given.map(([name, certificate, key]) => ({ name, certificate, ...(key && { key }) })),
  });
  const noKeyIn = (res: { text: string; body: Record<string, unknown> }) => {
    expect(res.text).not.toContain('PRIVATE KEY');
    expect(Object.keys(res.body).filter((k) => !k.endsWith('_cert'))).toEqual([]);
  };

  row('GET /v1/cluster/certificates', async () => {
    const res = await send(t, 'GET', '/v1/cluster/certificates', root);
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('api_cert'); // in process: no listener, none stored
    const api = selfSigned(dir, 'api-get', 'tessera.example.com');
    const put = await send(t, 'PUT', '/v1/cluster/certificates', root, certificates(['api', api.certificate, api.key]));
    expect(put.status, put.text).toBe(200);
    const got = await send(t, 'GET', '/v1/cluster/certificates', root);
    expect(got.status).toBe(200);
    expect(got.body.api_cert).toBe(api.certificate);
    expect(got.body).not.toHaveProperty('api_key'); // the example's: never a key here, on purpose
    noKeyIn(got);
  });

  row('PUT /v1/cluster/certificates', async () => {
    // The docs' example: proxy and api in one request; one certificate for both, as automation may send.
    const server = selfSigned(dir, 'server', 'tessera.example.com');
    const res = await send(
      t,
      'PUT',
      '/v1/cluster/certificates',
      root,
      certificates(['proxy', server.certificate, server.key], ['api', server.certificate, server.key]),
    );
    expect([res.status, res.body]).toEqual([200, {}]);
    const got = await send(t, 'GET', '/v1/cluster/certificates', root);
    expect(got.body).toMatchObject({ api_cert: server.certificate, proxy_cert: server.certificate });
    noKeyIn(got);
    // Every certificate is checked before any is set: a bad proxy (another's key) leaves api as it was.
    const other = selfSigned(dir, 'server-other', 'other.example.com');
    const bad = await send(
      t,
      'PUT',
      '/v1/cluster/certificates',
      root,
      certificates(['proxy', other.certificate, server.key], ['api', other.certificate, other.key]),
    );
    expect([bad.status, bad.body.error_code]).toEqual([400, 'invalid_certificate']);
    expect(bad.body.message).toMatch(/^proxy: /);
    expect((await send(t, 'GET', '/v1/cluster/certificates', root)).body).toMatchObject({
      api_cert: server.certificate,
      proxy_cert: server.certificate,
    });
    // A name the product's certificates table has not: 403, the docs' "unknown certificate(s)".
    const unknown = await send(t, 'PUT', '/v1/cluster/certificates', root, certificates(['web', server.certificate]));
    expect([unknown.status, unknown.body.error_code]).toEqual([403, 'unknown_certificate']);
  });

  row('PUT /v1/cluster/update_cert', async () => {
    const server = selfSigned(dir, 'server1', 'tessera.example.com');
    // The example's name is a placeholder ("certificate1"); a name of the product's table is taken.
    const placeholder = await send(t, 'PUT', '/v1/cluster/update_cert', root, {
      name: 'certificate1',
      key: server.key,
      certificate: server.certificate,
    });
    expect([placeholder.status, placeholder.body.error_code]).toEqual([403, 'unknown_certificate']);
    const res = await send(t, 'PUT', '/v1/cluster/update_cert', root, {
      name: 'syncer',
      key: server.key,
      certificate: server.certificate,
    });
    expect([res.status, res.body], res.text).toEqual([200, {}]);
    expect((await send(t, 'GET', '/v1/cluster/certificates', root)).body.syncer_cert).toBe(server.certificate);
    const idp = selfSigned(dir, 'idp', 'idp');
    const own = await send(t, 'PUT', '/v1/cluster/update_cert', root, {
      name: 'sso_issuer',
      certificate: idp.certificate,
    });
    expect(own.status, own.text).toBe(200);
  });

  row('DELETE /v1/cluster/certificates/{certificate_name}', async () => {
    const unknown = await send(t, 'DELETE', '/v1/cluster/certificates/certificate1', root);
    expect([unknown.status, unknown.body.error_code]).toEqual([404, 'not_found']);
    // Required (the product's autogenerated ones): 403, and what to do instead.
    for (const name of ['api', 'ccs_internode_encryption', 'cm', 'data_internode_encryption', 'metrics_exporter']) {
      const required = await send(t, 'DELETE', `/v1/cluster/certificates/${name}`, root);
      expect([name, required.status, required.body.error_code]).toEqual([
        name,
        403,
        'delete_required_certificate_not_allowed',
      ]);
    }
    const proxy = await send(t, 'DELETE', '/v1/cluster/certificates/proxy', root);
    expect([proxy.status, proxy.body.error_code]).toEqual([403, 'delete_required_certificate_not_allowed']);
    expect(proxy.body.message).toContain('required');
    expect(proxy.body.message).toContain('PUT /v1/cluster/certificates');
    const api = await send(t, 'DELETE', '/v1/cluster/certificates/api', root);
    expect(api.body.message).toContain('POST /v1/cluster/certificates/rotate');
    expect((await send(t, 'DELETE', '/v1/cluster/certificates/syncer', root)).status).toBe(403);
    const kept = await send(t, 'GET', '/v1/cluster/certificates', root);
    expect(kept.body).toHaveProperty('proxy_cert');
    expect(kept.body).toHaveProperty('api_cert');
    // Optional: 200, set (ldap_client, mtls_trusted_ca, sso_issuer) or not (sso_service).
    const client = selfSigned(dir, 'ldap-client', 'tessera-ldap-client');
    const set = await send(
      t,
      'PUT',
      '/v1/cluster/certificates',
      root,
      certificates(['ldap_client', client.certificate, client.key], ['mtls_trusted_ca', makeCa(dir, 'clients').pem]),
    );
    expect(set.status, set.text).toBe(200);
    for (const name of ['ldap_client', 'mtls_trusted_ca', 'sso_issuer', 'sso_service']) {
      const optional = await send(t, 'DELETE', `/v1/cluster/certificates/${name}`, root);
      expect([name, optional.status, optional.body]).toEqual([name, 200, {}]);
    }
    const after = (await send(t, 'GET', '/v1/cluster/certificates', root)).body;
    for (const gone of ['ldap_client_cert', 'mtls_trusted_ca_cert', 'sso_issuer_cert'])
      expect(after).not.toHaveProperty(gone);
  });

  row('POST /v1/cluster/certificates/rotate', async () => {
    // The docs' example (no body) regenerates the internal certificates. In process there is no
    // TLS listener and the api certificate stored is an operator's: nothing internal to rotate,
    // 200 and nothing changed. A TLS node rotates its self-signed api certificate:
    // test/tls/api-certificate.test.ts.
    const before = (await send(t, 'GET', '/v1/cluster/certificates', root)).body;
    const res = await send(t, 'POST', '/v1/cluster/certificates/rotate', root);
    expect([res.status, res.body]).toEqual([200, {}]);
    expect((await send(t, 'GET', '/v1/cluster/certificates', root)).body).toEqual(before);
    // Asked by name: the operator's api, or a certificate Tessera does not make, is the docs' 403.
    for (const name of ['api', 'proxy']) {
      const named = await send(t, 'POST', '/v1/cluster/certificates/rotate', root, { name });
      expect([name, named.status, named.body.error_code]).toEqual([name, 403, 'rotation_unsupported']);
    }
  });
});

describe.skipIf(!slapdAvailable())('LDAP (cluster/ldap.md, ldap_mappings/_index.md), against a real slapd', () => {
  let directory: Directory;
  let t: TestTessera;
  let root: string;
  let manager: string;
  beforeAll(async () => {
    directory = await startDirectory(person('alice', 'alice-pw-1'));
    t = await testTessera({ masterKey: randomBytes(32).toString('base64') });
    await t.addUser('root', 'root-password', 'admin');
    await t.addUser('manager', 'manager-password', 'user_manager');
    root = t.basic('root', 'root-password');
    manager = t.basic('manager', 'manager-password');
  });
  afterAll(async () => {
    await t?.close();
    await directory?.stop();
  });

  row('PUT /v1/cluster/ldap', async () => {
    // The docs' directory and its bind DN are replaced by the test's own.
    const body = {
      uris: [directory.url],
      bind_dn: ROOT_DN,
      bind_pass: ROOT_PASSWORD,
      user_dn_template: `uid=%u,ou=people,${BASE_DN}`,
      dn_group_attr: 'MemberOf',
      directory_timeout_s: 5,
    };
    // config_ldap: the product's table gives it to user_manager too; Tessera to admin only.
    const byManager = await send(t, 'PUT', '/v1/cluster/ldap', manager, body);
    expect([byManager.status, byManager.body.error_code]).toEqual([403, 'forbidden']);
    const res = await send(t, 'PUT', '/v1/cluster/ldap', root, body);
    expect(res.status, res.text).toBe(200);
  });

  row('GET /v1/cluster/ldap', async () => {
    const res = await send(t, 'GET', '/v1/cluster/ldap', manager);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      bind_dn: ROOT_DN,
      bind_pass: '***',
      ca_cert: expect.any(String),
      control_plane: expect.any(Boolean),
      data_plane: expect.any(Boolean),
      dn_group_attr: 'MemberOf',
      dn_group_query: expect.any(Object),
      starttls: expect.any(Boolean),
      uris: [directory.url],
      user_dn_query: expect.any(Object),
      user_dn_template: `uid=%u,ou=people,${BASE_DN}`,
    });
  });

  let mapping: number;
  row('POST /v1/ldap_mappings', async () => {
    const body = {
      name: 'Admins',
      dn: 'OU=ops.group,DC=redislabs,DC=com',
      email: 'ops.group@redislabs.com',
      role_uids: [1],
    };
    // A user_manager manages mappings to roles below admin: the example's admin mapping is refused.
    const byManager = await send(t, 'POST', '/v1/ldap_mappings', manager, body);
    expect([byManager.status, byManager.body.error_code]).toEqual([403, 'unauthorized_action']);
    const res = await send(t, 'POST', '/v1/ldap_mappings', root, body);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      uid: expect.any(Number),
      name: 'Admins',
      dn: 'OU=ops.group,DC=redislabs,DC=com',
      email: 'ops.group@redislabs.com',
      role_uids: [1],
    });
    mapping = res.body.uid;
  });

  // The docs' GET examples show a mapping whose alerts are set, as the PUT example sets them.
  row('PUT /v1/ldap_mappings/{uid}', async () => {
    const res = await send(t, 'PUT', `/v1/ldap_mappings/${mapping}`, root, {
      dn: 'OU=ops,DC=redislabs,DC=com',
      email: 'ops@redislabs.com',
      email_alerts: true,
      bdbs_email_alerts: ['1', '2'],
      cluster_email_alerts: true,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      uid: mapping,
      name: 'Admins',
      dn: 'OU=ops,DC=redislabs,DC=com',
      email: 'ops@redislabs.com',
      role_uids: [1],
      email_alerts: true,
      bdbs_email_alerts: ['1', '2'],
      cluster_email_alerts: true,
    });
  });

  const MAPPING = {
    uid: expect.any(Number),
    name: 'Admins',
    dn: expect.any(String),
    email: expect.any(String),
    role_uids: [1],
    email_alerts: expect.any(Boolean),
    bdbs_email_alerts: expect.any(Array),
    cluster_email_alerts: expect.any(Boolean),
  };
  row('GET /v1/ldap_mappings', async () => {
    const res = await send(t, 'GET', '/v1/ldap_mappings', manager);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([expect.objectContaining(MAPPING)]);
  });

  row('GET /v1/ldap_mappings/{uid}', async () => {
    const res = await send(t, 'GET', `/v1/ldap_mappings/${mapping}`, manager);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ...MAPPING, uid: mapping });
  });

  row('DELETE /v1/ldap_mappings/{uid}', async () => {
    const res = await send(t, 'DELETE', `/v1/ldap_mappings/${mapping}`, root);
    expect(res.status, res.text).toBe(200);
    expect((await send(t, 'GET', `/v1/ldap_mappings/${mapping}`, root)).status).toBe(404);
  });

  row('DELETE /v1/cluster/ldap', async () => {
    const byManager = await send(t, 'DELETE', '/v1/cluster/ldap', manager);
    expect([byManager.status, byManager.body.error_code]).toEqual([403, 'forbidden']);
    const res = await send(t, 'DELETE', '/v1/cluster/ldap', root);
    expect(res.status, res.text).toBe(200);
    expect((await send(t, 'GET', '/v1/cluster/ldap', root)).body.uris).toEqual([]);
  });
});

describe('SSO (cluster/sso.md)', () => {
  let t: TestTessera;
  let root: string;
  let dir: string;
  const IDP_METADATA = `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="urn:sso:example:idp">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example.com/sso/slo"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example.com/sso/saml"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tessera-product-sso-'));
    t = await testTessera({ publicUrl: 'https://cnm.cluster.fqdn' });
    await t.addUser('root', 'root-password', 'admin');
    root = t.basic('root', 'root-password');
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const SSO = {
    control_plane: expect.any(Boolean),
    protocol: 'saml2',
    enforce_control_plane: expect.any(Boolean),
    issuer: { id: expect.any(String), login_url: expect.any(String), logout_url: expect.any(String) },
    service: {
      saml2: {
        entity_id: 'https://cnm.cluster.fqdn/sp',
        acs_url: 'https://cnm.cluster.fqdn/v1/cluster/sso/saml/acs',
        slo_url: 'https://cnm.cluster.fqdn/v1/cluster/sso/saml/slo',
      },
    },
  };

  row('POST /v1/cluster/sso/saml/metadata/idp', async () => {
    const res = await send(t, 'POST', '/v1/cluster/sso/saml/metadata/idp', root, {
      idp_metadata: Buffer.from(IDP_METADATA).toString('base64'),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      ...SSO,
      issuer: {
        id: 'urn:sso:example:idp',
        login_url: 'https://idp.example.com/sso/saml',
        logout_url: 'https://idp.example.com/sso/slo',
      },
    });
  });

  row('PUT /v1/cluster/sso', async () => {
    const res = await send(t, 'PUT', '/v1/cluster/sso', root, {
      control_plane: false,
      protocol: 'saml2',
      enforce_control_plane: false,
      issuer: {
        id: 'urn:sso:example:idp',
        login_url: 'https://idp.example.com/sso/saml',
        logout_url: 'https://idp.example.com/sso/slo',
      },
      service: { address: 'https://cnm.cluster.fqdn' },
    });
    expect(res.status, res.text).toBe(200);
  });

  row('GET /v1/cluster/sso', async () => {
    const res = await send(t, 'GET', '/v1/cluster/sso', root);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ...SSO,
      issuer: { ...SSO.issuer, id: 'urn:sso:example:idp', metadata: expect.any(String) },
      service: { ...SSO.service, address: 'https://cnm.cluster.fqdn' },
    });
  });

  row('GET /v1/cluster/sso/saml/metadata/sp', async () => {
    const before = await send(t, 'GET', '/v1/cluster/sso/saml/metadata/sp', root);
    expect([before.status, before.body.error_code]).toEqual([406, 'missing_certificate']);
    const sp = selfSigned(dir, 'sp', 'tessera-sp');
    const set = await send(t, 'PUT', '/v1/cluster/certificates', root, {
      certificates: [{ name: 'sso_service', certificate: sp.certificate, key: sp.key }],
    });
    expect(set.status, set.text).toBe(200);
    const res = await send(t, 'GET', '/v1/cluster/sso/saml/metadata/sp', root);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/xml/);
    const element = new DOMParser().parseFromString(res.text, 'text/xml').documentElement!;
    expect([element.namespaceURI, element.localName]).toEqual([
      'urn:oasis:names:tc:SAML:2.0:metadata',
      'EntityDescriptor',
    ]);
  });

  row('DELETE /v1/cluster/sso', async () => {
    const res = await send(t, 'DELETE', '/v1/cluster/sso', root);
    expect(res.status, res.text).toBe(200);
    expect((await send(t, 'GET', '/v1/cluster/sso', root)).body.issuer.id).toBe('');
  });
});

describe('docs/product-requests.md', () => {
  const rows = [...DOCUMENT.matchAll(/^\| `((?:GET|POST|PUT|PATCH|DELETE) \/[^`]*)` +\| (yes|in part|no) +\|/gm)].map(
    ([, request, rating]) => ({ request: request!, rating: rating! }),
  );
  const OUT_OF_SCOPE = /^\w+ \/v\d\/(bdbs|redis_acls|bootstrap)\b/;
  const inScope = rows.filter((r) => !OUT_OF_SCOPE.test(r.request));

  it('has a case here for every request in scope, and no case for a request it does not list', () => {
    expect(inScope.length).toBeGreaterThan(0);
    expect([...tested].sort()).toEqual(inScope.map((r) => r.request).sort());
  });

  it('states the counts of its rows', () => {
    const count = (rating: string) => inScope.filter((r) => r.rating === rating).length;
    const stated = /In scope: (\d+) requests: (\d+) yes, (\d+) in part, (\d+) no\./.exec(DOCUMENT);
    expect(stated, 'the line "In scope: N requests: N yes, N in part, N no."').not.toBeNull();
    expect(stated!.slice(1).map(Number)).toEqual([inScope.length, count('yes'), count('in part'), count('no')]);
    const outside = rows.length - inScope.length;
    expect(DOCUMENT).toContain(`Outside the count: ${outside} requests`);
    expect(rows.filter((r) => OUT_OF_SCOPE.test(r.request)).every((r) => r.rating === 'no')).toBe(true);
  });
});
