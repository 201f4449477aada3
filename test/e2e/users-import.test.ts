import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, FAST_ARGON2_ENV, request, runCli, type ServeProcess, startServe } from '../helpers/cli.js';

/** The product's recipe for a pre-hashed password (objects/user.md): hex SHA-256 of `username:clustername:password`. */
const preHash = (username: string, cluster: string, password: string) =>
  createHash('sha256').update(`${username}:${cluster}:${password}`).digest('hex');

/** Users moved in from a cluster of the product, with their passwords pre-hashed, against the real server and CLI. */
describe('users moved in from a cluster (password_hash_method 1)', () => {
  let server: ServeProcess;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-import-'));
  const env = {
    ...FAST_ARGON2_ENV,
    TESSERA_DATA_DIR: dataDir,
    TESSERA_ADMIN_USERNAME: 'root',
    TESSERA_ADMIN_PASSWORD: 'root-password',
  };
  const root = basic('root', 'root-password');
  const call = (method: string, url: string, body?: unknown, authorization = root) =>
    request(`${server.url}${url}`, {
      method,
      headers: { authorization, 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
  const login = (username: string, password: string) =>
    call('POST', '/v1/users/authorize', undefined, basic(username, password));
  /** What the store keeps of a user's passwords: never read by the API, so read from the SQLite file. */
  const storedHashes = (uid: number) => {
    const db = new Database(path.join(dataDir, 'tessera.db'), { readonly: true });
    try {
      return (
        db.prepare('SELECT hash FROM user_passwords WHERE uid = ? ORDER BY id').all(uid) as { hash: string }[]
      ).map((r) => r.hash);
    } finally {
      db.close();
    }
  };
  const cluster = 'c1.example.com';

  beforeAll(async () => {
    server = await startServe(['--no-tls'], env);
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('POST /v1/users takes a pre-hashed password; the first login with it stores argon2id instead', async () => {
    // Every node must make the same record: not before the cluster has a name of its own (not each node's host).
    const unnamed = await call('POST', '/v1/users', {
      name: 'early',
      role: 'db_viewer',
      password: preHash('early', 'x', 'Early-password-1'),
      password_hash_method: 1,
    });
    expect([unnamed.status, unnamed.json.message]).toEqual([
      400,
      expect.stringContaining("Set the cluster's name first"),
    ]);
    expect((await call('PUT', '/v1/cluster', { name: cluster })).status).toBe(200);
    const made = await call('POST', '/v1/users', {
      email: 'mover@example.com',
      name: 'Mover',
      role: 'db_viewer',
      password: preHash('mover@example.com', cluster, 'Old-password-1'),
      password_hash_method: 1,
    });
    expect(made.status, JSON.stringify(made.json)).toBe(200);
    expect(JSON.stringify(made.json)).not.toMatch(/password_hash|sha256/);
    expect(storedHashes(made.json.uid)).toEqual([expect.stringMatching(/^\$product-sha256\$/)]);

    expect((await login('mover@example.com', 'Old-password-2')).status).toBe(401);
    expect(storedHashes(made.json.uid)[0]).toMatch(/^\$product-sha256\$/); // a wrong one changes nothing
    expect((await login('mover@example.com', 'Old-password-1')).status).toBe(200);
    expect(storedHashes(made.json.uid)).toEqual([expect.stringMatching(/^\$argon2id\$/)]);
    // Now by its argon2id hash, with either login.
    expect((await login('Mover', 'Old-password-1')).status).toBe(200);
    expect((await login('mover@example.com', 'Old-password-2')).status).toBe(401);
  });

  it('takes the recipe made with the name as well, and "1" as the docs write it', async () => {
    const made = await call('POST', '/v1/users', {
      name: 'named',
      role: 'db_viewer',
      password: preHash('named', cluster, 'Named-password-1'),
      password_hash_method: '1',
    });
    expect(made.status, JSON.stringify(made.json)).toBe(200);
    expect((await login('named', 'Named-password-1')).status).toBe(200);
  });

  it('refuses what is not a pre-hashed password, with a clear 400, and makes nobody', async () => {
    const cases = [
      [{ name: 'bad1', password: 'not-hex', password_hash_method: 1 }, 'hex SHA-256'],
      [{ name: 'bad2', password: 'ab'.repeat(31), password_hash_method: 1 }, 'hex SHA-256'],
      [{ name: 'bad3', password: preHash('bad3', cluster, 'x'), password_hash_method: 2 }, 'password_hash_method'],
      [
        { name: 'bad4', auth_method: 'certificate', certificate_subject_line: 'CN=bad4', password_hash_method: 1 },
        'password_hash_method goes with',
      ],
    ] as const;
    for (const [body, message] of cases) {
      const res = await call('POST', '/v1/users', { role: 'db_viewer', ...body });
      expect([res.status, res.json.error_code], JSON.stringify(res.json)).toEqual([400, 'invalid_request']);
      expect(res.json.message).toContain(message);
    }
    const names = (await call('GET', '/v1/users')).json.map((u: { name: string }) => u.name);
    expect(names.filter((n: string) => n.startsWith('bad'))).toEqual([]);
  });

  it("an admin sets another user's password pre-hashed; a user never its own (it would skip the rules)", async () => {
    const made = (await call('POST', '/v1/users', { name: 'rotor', role: 'db_viewer', password: 'Rotor-password-1' }))
      .json;
    const own = await call(
      'PUT',
      `/v1/users/${made.uid}`,
      { password: preHash('rotor', cluster, 'a'), password_hash_method: 1 },
      basic('rotor', 'Rotor-password-1'),
    );
    expect([own.status, own.json.error_code]).toEqual([403, 'unauthorized_action']);
    const ownToo = await call(
      'PUT',
      '/v1/users/password',
      { new_password: preHash('rotor', cluster, 'a'), password_hash_method: 1 },
      basic('rotor', 'Rotor-password-1'),
    );
    expect([ownToo.status, ownToo.json.error_code]).toEqual([403, 'unauthorized_action']);
    expect((await login('rotor', 'a')).status).toBe(401);

    const added = await call('POST', '/v1/users/password', {
      username: 'rotor',
      new_password: preHash('rotor', cluster, 'Rotor-password-2'),
      password_hash_method: 1,
    });
    expect([added.status, added.json.message]).toEqual([400, expect.stringContaining('replaces the user')]); // beside a password in use it would stay for ever
    const byAdmin = await call('PUT', '/v1/users/password', {
      username: 'rotor',
      new_password: preHash('rotor', cluster, 'Rotor-password-2'),
      password_hash_method: 1,
    });
    expect(byAdmin.status, JSON.stringify(byAdmin.json)).toBe(200);
    expect((await login('rotor', 'Rotor-password-1')).status).toBe(401);
    expect((await login('rotor', 'Rotor-password-2')).status).toBe(200);
    expect(storedHashes(made.uid)).toEqual([expect.stringMatching(/^\$argon2id\$/)]);
  });

  it('a moved-in password that fails the rules must be changed at its first login; an empty one never logs in', async () => {
    const weak = await call('POST', '/v1/users', {
      name: 'weakling',
      role: 'db_viewer',
      password: preHash('weakling', cluster, 'abc'),
      password_hash_method: 1,
    });
    expect(weak.status).toBe(200);
    const first = await login('weakling', 'abc');
    expect([first.status, first.json.error_code]).toEqual([401, 'password_expired']);
    expect(storedHashes(weak.json.uid)).toEqual([expect.stringMatching(/^\$argon2id\$/)]);
    const empty = await call('POST', '/v1/users', {
      name: 'hollow',
      role: 'db_viewer',
      password: preHash('hollow', cluster, ''),
      password_hash_method: 1,
    });
    expect(empty.status).toBe(200);
    expect((await login('hollow', '')).status).toBe(401);
  });

  it('tessera users import: roles matched by name, users made with their old passwords, a report, a dry run that writes nothing', async () => {
    const source = 'cluster.example.com';
    const file = path.join(dataDir, 'export.json');
    writeFileSync(
      file,
      JSON.stringify({
        roles: [
          { uid: 3, name: 'ops-readers', management: 'cluster_viewer' },
          { uid: 205, name: 'auditors', management: 'db_viewer' },
          // A name that grants another level here, and a uid two roles claim: neither maps, their users are refused.
          { uid: 300, name: 'Cluster Viewer', management: 'admin' },
          { uid: 301, name: 'viewers', management: 'db_viewer' },
          { uid: 301, name: 'bosses', management: 'admin' },
          { uid: 4, name: 'Admin', management: 'admin' },
        ],
        users: [
          // As GET /v1/users answers, read-only fields and all, with the hash added.
          {
            uid: 9,
            name: 'olga',
            email: 'olga@example.com',
            role: 'none',
            role_uids: [3, 205],
            auth_method: 'regular',
            status: 'active',
            password_issue_date: '2026-01-02T03:04:05Z',
            email_alerts: false,
            password: preHash('olga@example.com', source, 'Olga-password-1'),
            password_hash_method: 1,
          },
          {
            uid: 10,
            name: 'bot',
            role: 'cluster_member',
            auth_method: 'certificate',
            certificate_subject_line: 'CN=bot,O=Example',
          },
          { uid: 11, name: 'nopass', email: '', role: 'db_viewer', auth_method: 'regular' },
          { uid: 12, name: 'Mover', role: 'admin', password: preHash('Mover', source, 'x'), password_hash_method: 1 },
          {
            uid: 13,
            name: 'stray',
            role: 'none',
            role_uids: [99],
            password: preHash('stray', source, 'Stray-password-1'),
            password_hash_method: 1,
          },
          {
            uid: 14,
            name: 'chief',
            role_uids: [4],
            password: preHash('chief', source, 'Chief-password-1'),
            password_hash_method: 1,
          },
          {
            uid: 15,
            name: 'carol',
            role_uids: [300],
            password: preHash('carol', source, 'Carol-password-1'),
            password_hash_method: 1,
          },
          {
            uid: 16,
            name: 'dave',
            role_uids: [301],
            password: preHash('dave', source, 'Dave-password-1'),
            password_hash_method: 1,
          },
          { uid: 17, name: 'plain', role: 'db_viewer', password: preHash('plain', source, 'Plain-password-1') },
          {
            uid: 18,
            name: 'later',
            role: 'db_viewer',
            password_issue_date: '9999-12-31T00:00:00Z',
            password: preHash('later', source, 'Later-password-1'),
            password_hash_method: 1,
          },
        ],
      }),
    );
    const before = (await call('GET', '/v1/users')).json.length;

    const elsewhere = { ...env, TESSERA_DATA_DIR: path.join(dataDir, 'unnamed') };
    const noName = await runCli(['users', 'import', '--create', file], { env: elsewhere });
    expect([noName.code, noName.stderr]).toEqual([1, expect.stringContaining('give --cluster-name')]);

    const dry = await runCli(['users', 'import', '--dry-run', '--cluster-name', source, file], { env });
    expect(dry.code, dry.stderr).toBe(1);
    expect(dry.stdout).toMatch(/would create\s+role ops-readers/);
    expect(dry.stdout).toMatch(/exists\s+role Admin \(uid 1\)/);
    expect(dry.stdout).toMatch(/would create\s+user olga\b/);
    expect(dry.stderr).toContain('dry run: nothing written');
    expect((await call('GET', '/v1/users')).json.length).toBe(before);
    expect((await call('GET', '/v1/roles')).json.map((r: { name: string }) => r.name)).not.toContain('ops-readers');

    const run = await runCli(['users', 'import', '--json', '--cluster-name', source, file], { env });
    expect(run.code, run.stderr).toBe(1);
    const report = Object.fromEntries(
      run.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .map((l) => [`${l.kind} ${l.who}`, l]),
    );
    // 3 is a built-in role's uid here: made with the next free one, and the users' role_uids follow.
    expect(report['role ops-readers']).toMatchObject({ outcome: 'created', uid: 101 });
    expect(report['role auditors']).toMatchObject({ outcome: 'created', uid: 205 });
    expect(report['role Admin']).toMatchObject({ outcome: 'exists', uid: 1 });
    expect(report['user olga']).toMatchObject({ outcome: 'created' });
    expect(report['user bot']).toMatchObject({ outcome: 'created' });
    expect(report['user nopass']).toMatchObject({ outcome: 'refused', detail: expect.stringContaining('no password') });
    expect(report['user Mover']).toMatchObject({ outcome: 'exists' });
    expect(report['user stray']).toMatchObject({
      outcome: 'refused',
      detail: expect.stringContaining("99 is not one of the file's roles"),
    });
    expect(report['user chief']).toMatchObject({ outcome: 'created' });
    expect(report['role Cluster Viewer']).toMatchObject({
      outcome: 'refused',
      detail: expect.stringContaining('grants cluster_viewer, not admin'),
    });
    expect(report['role viewers']).toMatchObject({
      outcome: 'refused',
      detail: expect.stringContaining('more than one role'),
    });
    expect(report['user carol']).toMatchObject({
      outcome: 'refused',
      detail: expect.stringContaining("300 is not one of the file's roles"),
    });
    expect(report['user dave']).toMatchObject({
      outcome: 'refused',
      detail: expect.stringContaining("301 is not one of the file's roles"),
    });
    expect(report['user plain']).toMatchObject({
      outcome: 'refused',
      detail: expect.stringContaining('password_hash_method'),
    });
    expect(report['user later']).toMatchObject({ outcome: 'created' });
    expect(run.stderr).toContain('6 created, 2 here already, 8 refused');

    const olga = (await call('GET', `/v1/users/${report['user olga'].uid}`)).json;
    expect(olga).toMatchObject({
      name: 'olga',
      email: 'olga@example.com',
      role_uids: [101, 205],
      email_alerts: false,
      password_issue_date: '2026-01-02T03:04:05Z',
    });
    expect((await login('olga', 'Olga-password-1')).status).toBe(200);
    expect(storedHashes(olga.uid)).toEqual([expect.stringMatching(/^\$argon2id\$/)]);
    const chief = (await call('GET', `/v1/users/${report['user chief'].uid}`)).json;
    expect(chief).toMatchObject({ role: 'admin', role_uids: [1] });
    expect((await login('chief', 'Chief-password-1')).status).toBe(200);
    const later = (await call('GET', `/v1/users/${report['user later'].uid}`)).json;
    expect(Date.parse(later.password_issue_date)).toBeLessThanOrEqual(Date.now()); // not a date to come
    // The one that was here is as it was.
    expect((await login('Mover', 'Old-password-1')).status).toBe(200);
    const events = (await call('GET', '/v1/logs?stime=2000-01-01T00:00:00Z&limit=500')).json as {
      type: string;
      username?: string;
    }[];
    expect(events.filter((e) => e.type === 'user_created').map((e) => e.username)).toEqual(
      expect.arrayContaining(['olga', 'bot', 'chief']),
    );
  });
});
