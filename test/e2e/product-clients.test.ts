import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, FAST_ARGON2_ENV, request, type ServeProcess, startServe } from '../helpers/cli.js';

const ADMIN = 'admin@cluster.example';
const ADMIN_PASSWORD = 'Admin-password-1';

/**
 * The requests that real clients of the product's REST API send, replayed against the real
 * CLI server over HTTPS (its self-signed certificate trusted), read the way each client
 * reads the answers. The clients themselves (Go, Rust, Python) cannot be built here.
 */
describe("clients of the product's REST API, unchanged", () => {
  let dataDir: string;
  let server: ServeProcess;
  let ca: Buffer;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-clients-'));
    server = await startServe(['--auth-rate-limit', '0'], {
      ...FAST_ARGON2_ENV,
      TESSERA_DATA_DIR: dataDir,
      TESSERA_ADMIN_USERNAME: ADMIN,
      TESSERA_ADMIN_PASSWORD: ADMIN_PASSWORD,
    });
    ca = readFileSync(path.join(dataDir, 'tls', 'cert.pem'));
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** As Go's net/http with SetBasicAuth, Accept and a JSON Content-Type (Vault's plugin, sdk.go). */
  const goClient = (username: string, password: string) => async (method: string, url: string, body?: unknown) => {
    const text = body === undefined ? '' : `${JSON.stringify(body)}\n`; // json.Encoder ends with a newline
    const res = await request(`${server.url}${url}`, {
      method,
      ca,
      headers: {
        authorization: basic(username, password),
        accept: 'application/json',
        'content-length': String(Buffer.byteLength(text)),
        ...(body !== undefined && { 'content-type': 'application/json;charset=utf-8' }),
      },
      body: text,
    });
    if (res.status !== 200)
      throw new Error(`unable to perform request ${method} ${url}: ${res.status} - ${JSON.stringify(res.json)}`);
    return res.json;
  };

  it("HashiCorp Vault's database plugin: verify the connection, find a role, create, rotate, find and delete a user, rotate its own root password", async () => {
    let vault = goClient(ADMIN, ADMIN_PASSWORD);
    // Initialize → verify connection: GET /v1/cluster with the root credentials, decoded as {name}.
    expect((await vault('GET', '/v1/cluster')).name).toEqual(expect.any(String));
    await expect(goClient(ADMIN, 'wrong')('GET', '/v1/cluster')).rejects.toThrow(/401/);
    // NewUser: FindRoleByName over GET /v1/roles, then POST /v1/users with name, role_uids, email_alerts false.
    const role = (await vault('GET', '/v1/roles')).find((r: { name: string }) => r.name === 'DB Member');
    expect(role).toEqual({ uid: expect.any(Number), name: 'DB Member', management: 'db_member' });
    const username = 'v_token_dbrole_Aa9bC8dE7fG6hI5jK4lM_1732460000';
    const created = await vault('POST', '/v1/users', {
      name: username,
      password: 'Vault-generated-Pw1-xyz',
      role_uids: [role.uid],
      email_alerts: false,
      auth_method: 'regular',
    });
    expect(created).toMatchObject({
      uid: expect.any(Number),
      name: username,
      role: 'db_member',
      role_uids: [role.uid],
      password_issue_date: expect.any(String),
    });
    // The new user's credentials work at once.
    expect((await goClient(username, 'Vault-generated-Pw1-xyz')('GET', `/v1/users/${created.uid}`)).name).toBe(
      username,
    );
    // FindUserByName: GET /v1/users, by name then email.
    const found = (await vault('GET', '/v1/users')).find((u: { name: string }) => u.name === username);
    expect(found.uid).toBe(created.uid);
    // UpdateUser (password rotation of a dynamic user): PUT /v1/users/{uid} {password}.
    await vault('PUT', `/v1/users/${found.uid}`, { password: 'Vault-rotated-Pw2-xyz' });
    expect((await goClient(username, 'Vault-rotated-Pw2-xyz')('GET', `/v1/users/${found.uid}`)).uid).toBe(found.uid);
    // DeleteUser.
    await vault('DELETE', `/v1/users/${found.uid}`);
    expect((await vault('GET', '/v1/users')).some((u: { name: string }) => u.name === username)).toBe(false);
    // Root rotation: the root user changes its own password with its own Basic credentials, no old_password.
    const root = (await vault('GET', '/v1/users')).find(
      (u: { name: string; email: string }) => u.name === ADMIN || u.email === ADMIN,
    );
    await vault('PUT', `/v1/users/${root.uid}`, { password: 'Admin-rotated-by-vault-2' });
    vault = goClient(ADMIN, 'Admin-rotated-by-vault-2');
    expect((await vault('GET', '/v1/cluster')).name).toEqual(expect.any(String));
    await vault('PUT', `/v1/users/${root.uid}`, { password: ADMIN_PASSWORD });
  });

  it('the Rust SDK (redis-enterprise): users decode with email, role and role_uids; roles and permissions list', async () => {
    const rust = goClient(ADMIN, ADMIN_PASSWORD);
    // CreateUserRequest: email, password, role (and name, email_alerts when set); skip_serializing_if none.
    const created = await rust('POST', '/v1/users', {
      email: 'john.doe@example.com',
      password: 'secure-password-123',
      role: 'db_viewer',
      name: 'John Doe',
      email_alerts: true,
    });
    // struct User: uid u32, email String, name Option, role String, role_uids Option<Vec<u32>>, ...
    for (const user of [created, ...(await rust('GET', '/v1/users'))]) {
      expect(typeof user.uid).toBe('number');
      expect(typeof user.email).toBe('string');
      expect(typeof user.role).toBe('string');
      expect(Array.isArray(user.role_uids)).toBe(true);
      expect(user.password_issue_date === undefined || typeof user.password_issue_date === 'string').toBe(true);
    }
    // UpdateUserRequest with a role and email alerts; RoleHandler list/get; permissions (raw JSON).
    const updated = await rust('PUT', `/v1/users/${created.uid}`, { role: 'db_member', email_alerts: false });
    expect(updated).toMatchObject({ role: 'db_member', email_alerts: false, email: 'john.doe@example.com' });
    const roles = await rust('GET', '/v1/roles');
    expect(
      roles.every((r: { uid: number; name: string }) => typeof r.uid === 'number' && typeof r.name === 'string'),
    ).toBe(true);
    expect((await rust('GET', `/v1/roles/${roles[0].uid}`)).uid).toBe(roles[0].uid);
    expect((await rust('GET', '/v1/users/permissions')).admin.api_permissions).toContain('update_user');
    await rust('DELETE', `/v1/users/${created.uid}`);
  });

  it('the calls of product clients that broke before: a role named "admin", a user without a role, email "", the caller\'s role', async () => {
    const client = goClient(ADMIN, ADMIN_PASSWORD);
    const role = await client('POST', '/v1/roles', { name: 'admin', management: 'admin' });
    expect(role).toMatchObject({ name: 'admin', management: 'admin' });
    const user = await client('POST', '/v1/users', { name: 'no-role', email: '', password: 'No-role-password-1' });
    expect(user).toMatchObject({ role: 'db_viewer', email: '' });
    expect(await client('GET', '/v1/users/role')).toEqual({ role: 'admin' });
    expect(Object.keys(await client('GET', '/v1/users/permissions/db_viewer'))).toEqual(['db_viewer']);
    // What many HTTP clients send on every call, DELETE included: a JSON Content-Type and no body (with and without Content-Length: 0).
    for (const [url, length] of [
      [`/v1/users/${user.uid}`, { 'content-length': '0' }],
      [`/v1/roles/${role.uid}`, {}],
    ] as const) {
      const res = await request(`${server.url}${url}`, {
        method: 'DELETE',
        ca,
        headers: { authorization: basic(ADMIN, ADMIN_PASSWORD), 'content-type': 'application/json', ...length },
      });
      expect([url, res.status]).toEqual([url, 200]);
    }
  });

  it("the samples of the product's REST API pages (curl and Python requests): users, roles, own password", async () => {
    const curl = goClient(ADMIN, ADMIN_PASSWORD);
    // POST /v1/roles {"name": "DBA", "management": "admin"}, then PUT /v1/roles/{uid} {"management": "cluster_member"}.
    const dba = await curl('POST', '/v1/roles', { name: 'DBA', management: 'admin' });
    expect(await curl('PUT', `/v1/roles/${dba.uid}`, { management: 'cluster_member' })).toEqual({
      uid: dba.uid,
      name: 'DBA',
      management: 'cluster_member',
    });
    // POST /v1/users, the page's body as it is (role_uids 3 and 4 exist from the first start).
    const user = await curl('POST', '/v1/users', {
      email: 'newuser@redis.com',
      password: 'my-password-1',
      name: 'Pat Doe',
      email_alerts: true,
      bdbs_email_alerts: ['1', '2'],
      role_uids: [3, 4],
      auth_method: 'regular',
    });
    expect(user).toMatchObject({
      email: 'newuser@redis.com',
      name: 'Pat Doe',
      role_uids: [3, 4],
      bdbs_email_alerts: ['1', '2'],
      auth_method: 'regular',
      status: 'active',
    });
    // PUT /v1/users/{uid} {"name": "Jane Poe", "email_alerts": false}.
    expect(await curl('PUT', `/v1/users/${user.uid}`, { name: 'Jane Poe', email_alerts: false })).toMatchObject({
      name: 'Jane Poe',
      email_alerts: false,
    });
    // PUT /v1/users/password {"new_password"} for the user making the request (Basic).
    await goClient('newuser@redis.com', 'my-password-1')('PUT', '/v1/users/password', {
      new_password: 'the-new-single-password',
    });
    await goClient('Jane Poe', 'the-new-single-password')('POST', '/v1/users/password', {
      new_password: 'a-password-to-add-2',
    });
    await goClient('newuser@redis.com', 'a-password-to-add-2')('DELETE', '/v1/users/password', {
      old_password: 'the-new-single-password',
    });
    await expect(
      goClient('newuser@redis.com', 'the-new-single-password')('GET', `/v1/users/${user.uid}`),
    ).rejects.toThrow(/401/);
    // The role in use is not deleted; free, it is.
    await expect(curl('DELETE', '/v1/roles/3')).rejects.toThrow(/406/);
    await curl('DELETE', `/v1/users/${user.uid}`);
    await curl('DELETE', `/v1/roles/${dba.uid}`);
  });

  it("a password-sync operator: finds a user by email in GET /v1/users and sets its password with the admin's credentials", async () => {
    const operator = goClient(ADMIN, ADMIN_PASSWORD);
    await operator('POST', '/v1/users', {
      email: 'app@apps.example',
      password: 'app-password-old1',
      role: 'db_viewer',
    });
    const target = (await operator('GET', '/v1/users')).find((u: { email: string }) => u.email === 'app@apps.example');
    await operator('PUT', `/v1/users/${target.uid}`, { password: 'app-password-from-secret' });
    const token = await request(`${server.url}/v1/users/authorize`, {
      method: 'POST',
      ca,
      headers: { authorization: basic('app@apps.example', 'app-password-from-secret') },
    });
    expect(token.status).toBe(200);
    expect(token.json.access_token).toEqual(expect.any(String));
  });
});
