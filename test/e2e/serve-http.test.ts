import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeAt } from '../../src/mfa/totp.js';
import { basic, FAST_ARGON2_ENV, request, runCli, type ServeProcess, startServe } from '../helpers/cli.js';

/** The real CLI server over plain HTTP, with the CLI writing the store while it runs. */
describe('tessera serve --no-tls (subprocess)', () => {
  let dataDir: string;
  let server: ServeProcess;
  let adminPassword: string;
  /** What the first start said (a test restarts the server). */
  let firstStart: string;
  const env = () => ({ ...FAST_ARGON2_ENV, TESSERA_DATA_DIR: dataDir });

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-e2e-'));
    server = await startServe(['--no-tls'], env());
    firstStart = server.stderr();
    adminPassword = /shown this once only.*\n\n {4}(\S+)\n/.exec(firstStart)?.[1] ?? '';
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints the first admin and its random password once', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(firstStart).toContain('Created the first admin: admin@tessera.local');
    expect(firstStart).toContain(`Web console at ${server.url}/, API reference at ${server.url}/docs`);
    expect(adminPassword).toHaveLength(24);
  });

  it('issues tokens in both wire formats and accepts them on /v1/users', async () => {
    const a = await request(`${server.url}/v1/users/authorize`, {
      method: 'POST',
      headers: {
        authorization: basic('admin@tessera.local', adminPassword),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: '{"ttl": 600}',
    });
    expect(a.status).toBe(200);
    const b = await request(`${server.url}/v1/users/authorize`, {
      method: 'POST',
      body: JSON.stringify({ username: 'admin@tessera.local', password: adminPassword }),
    });
    expect(b.status).toBe(200);
    for (const token of [a.json.access_token, b.json.access_token]) {
      const users = await request(`${server.url}/v1/users`, { headers: { authorization: `JWT ${token}` } });
      expect(users.status).toBe(200);
      expect(users.json[0]).toMatchObject({ uid: 1, username: 'admin@tessera.local', role: 'admin', role_uids: [1] });
      // Plain HTTP (behind a proxy): no HSTS of its own; nothing it answers is cached.
      expect([users.headers['cache-control'], users.headers['strict-transport-security']]).toEqual([
        'no-store',
        undefined,
      ]);
    }
  });

  it('serves Prometheus metrics on a listener of their own, not on the API port', async () => {
    const management = /Management listener at (\S+) /.exec(server.stderr())?.[1];
    expect(management).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const metricsUrl = `${management}/metrics`;
    expect(metricsUrl).not.toContain(new URL(server.url).port);
    const successes = async () => {
      const text = await (await fetch(metricsUrl)).text();
      const count = (line: string) =>
        Number(
          new RegExp(`^tessera_logins_total\\{outcome="success",api_line="${line}"\\} (\\d+)$`, 'm').exec(text)?.[1] ??
            0,
        );
      return { '7.22': count('7.22'), '7.4': count('7.4') };
    };
    const before = await successes();
    const headers = { authorization: basic('admin@tessera.local', adminPassword) };
    expect((await request(`${server.url}/v1/users/authorize`, { method: 'POST', headers })).status).toBe(200);
    expect(await successes()).toEqual({ '7.22': before['7.22'] + 1, '7.4': before['7.4'] });
    expect((await request(`${server.url}/metrics`)).status).toBe(404);
  });

  it('sees users the CLI adds, expires and re-passwords while it runs', async () => {
    const add = await runCli(['users', 'add', '--username', 'Erin', '--role', 'db_viewer', '--password-stdin'], {
      env: env(),
      input: 'erin-password-1\n',
    });
    expect(add.stderr).toContain('Added Erin');
    expect(add.code).toBe(0);
    const login = (password: string) =>
      request(`${server.url}/v1/users/authorize`, {
        method: 'POST',
        headers: { authorization: basic('erin', password) },
      });
    expect((await login('erin-password-1')).status).toBe(200);

    // Changes made by another process reach the server within a second (it trusts a user it
    // read, with the password verified for it, for that long).
    const withinASecond = async (password: string) => {
      const until = Date.now() + 1200;
      let res = await login(password);
      while (res.status === 200 && Date.now() < until) res = await login(password);
      return res;
    };
    expect((await runCli(['users', 'expire-password', '--username', 'erin'], { env: env() })).code).toBe(0);
    const expired = await withinASecond('erin-password-1');
    expect(expired.status).toBe(401);
    expect(expired.json.error_code).toBe('password_expired');

    const set = await runCli(['users', 'set-password', '--username', 'erin', '--password-stdin'], {
      env: env(),
      input: 'erin-password-2',
    });
    expect(set.code).toBe(0);
    expect((await withinASecond('erin-password-1')).status).toBe(401);
    expect((await login('erin-password-2')).status).toBe(200);

    // The table says when erin last logged in, in whole seconds as the sessions and events do.
    const table = await runCli(['users', 'list'], { env: env() });
    expect(table.stdout).toMatch(/\bErin\b.* \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m);
    const list = await runCli(['users', 'list', '--json'], { env: env() });
    expect(JSON.parse(list.stdout).map((u: { username: string }) => u.username)).toEqual(
      expect.arrayContaining(['admin@tessera.local', 'Erin']),
    );

    expect((await runCli(['users', 'delete', '--username', 'ERIN'], { env: env() })).code).toBe(0);
    expect((await withinASecond('erin-password-2')).status).toBe(401);
  });

  it('gets a token with `tessera token`, in both formats', async () => {
    for (const line of ['7.22', '7.4']) {
      const res = await runCli(
        [
          'token',
          '--url',
          server.url,
          '--username',
          'admin@tessera.local',
          '--ttl',
          '120',
          '--api-line',
          line,
          '--password-stdin',
        ],
        { input: adminPassword },
      );
      expect(res.code).toBe(0);
      const token = res.stdout.trim();
      const me = await request(`${server.url}/v1/users/1`, { headers: { authorization: `Bearer ${token}` } });
      expect(me.status).toBe(200);
      // Its session says who started it: the CLI, by name and version.
      const sid = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sid;
      const sessions = await request(`${server.url}/v1/users/1/sessions`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const mine = sessions.json.find((s: { sid: string }) => s.sid === sid);
      expect(mine.user_agent).toMatch(/^tessera-cli\/\d+\.\d+\.\d+$/);
    }
    const refused = await runCli(
      ['token', '--url', server.url, '--username', 'admin@tessera.local', '--password-stdin'],
      { input: 'nope' },
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('invalid_credentials');
  });

  it('gets a token with `tessera token --code` for a user with a second factor, and says how when no code is given', async () => {
    const admin = basic('admin@tessera.local', adminPassword);
    const made = await request(`${server.url}/v1/users`, {
      method: 'POST',
      headers: { authorization: admin },
      body: JSON.stringify({ name: 'otp-user', password: 'Otp-user-password-1', role_uids: [3] }),
    });
    const login = await request(`${server.url}/v1/users/authorize`, {
      method: 'POST',
      body: JSON.stringify({ username: 'otp-user', password: 'Otp-user-password-1' }),
    });
    const auth = { authorization: `Bearer ${login.json.access_token}` };
    const started = await request(`${server.url}/v1/users/${made.json.uid}/mfa/totp`, {
      method: 'POST',
      headers: auth,
      body: '{}',
    });
    const verified = await request(`${server.url}/v1/users/${made.json.uid}/mfa/totp/verify`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ code: codeAt(started.json.secret, Date.now()) }),
    });
    expect(verified.status).toBe(200);
    const args = ['token', '--url', server.url, '--username', 'otp-user', '--password-stdin'];
    const noCode = await runCli(args, { input: 'Otp-user-password-1' });
    expect([noCode.code, noCode.stderr]).toEqual([1, expect.stringContaining('--code')]);
    // The enrolment took this step's code: the next step's is within the one step either side.
    const res = await runCli([...args, '--code', codeAt(started.json.secret, Date.now() + 30_000)], {
      input: 'Otp-user-password-1',
    });
    expect([res.code, res.stderr]).toEqual([0, '']);
    const claims = JSON.parse(Buffer.from(res.stdout.trim().split('.')[1]!, 'base64url').toString());
    expect([claims.username, typeof claims.mfa_at]).toEqual(['otp-user', 'number']);
    const recovery = await runCli([...args, '--code', verified.json.recovery_codes[0]], {
      input: 'Otp-user-password-1',
    });
    expect(recovery.code).toBe(0);
  });

  it('refuses the last admin deletion and reads no password from an argument', async () => {
    const del = await runCli(['users', 'delete', '--username', 'admin@tessera.local'], { env: env() });
    expect(del.code).not.toBe(0);
    expect(del.stderr).toContain('at least one admin');
    const noTty = await runCli(['users', 'add', '--username', 'x'], { env: env() });
    expect(noTty.code).not.toBe(0);
    expect(noTty.stderr).toContain('--password-stdin');
  });

  it('writes no password or token to its logs', async () => {
    const res = await request(`${server.url}/v1/users/authorize`, {
      method: 'POST',
      headers: { authorization: basic('admin@tessera.local', adminPassword) },
    });
    await request(`${server.url}/v1/users`, { headers: { authorization: `JWT ${res.json.access_token}` } });
    await request(`${server.url}/v1/users/authorize`, {
      method: 'POST',
      body: '{"username":"x","password":"leaky-secret-1"}',
    });
    await request(`${server.url}/v1/users/authorize`, { method: 'POST', body: '{"password": leaky-secret-2' });
    const logs = server.stdout();
    expect(logs).toContain('"url":"/v1/users/authorize"');
    for (const secret of [
      adminPassword,
      res.json.access_token,
      'leaky-secret',
      basic('admin@tessera.local', adminPassword).slice(6),
    ]) {
      expect(logs).not.toContain(secret);
    }
  });

  it('keeps its keys and admin across a restart, and stops cleanly on SIGTERM', async () => {
    const jwks = (await request(`${server.url}/.well-known/jwks.json`)).json;
    expect(await server.stop('SIGTERM')).toBe(0);
    server = await startServe(['--no-tls'], env());
    expect(server.stderr()).not.toContain('Created the first admin');
    expect((await request(`${server.url}/.well-known/jwks.json`)).json).toEqual(jwks);
  });
});
