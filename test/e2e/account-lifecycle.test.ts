import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { basic, FAST_ARGON2_ENV, request, runCli, type ServeProcess, startServe } from '../helpers/cli.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

const json = (body: unknown) => JSON.stringify(body);

describe('password expiry walk (real socket, movable clock)', () => {
  let t: TestTessera;
  afterEach(() => t.close());

  it('create → log in → expiry 1 day passes → password_expired → change → log in again', async () => {
    t = await testTessera();
    await t.addUser('root', 'root-password', 'admin');
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const admin = { authorization: basic('root', 'root-password') };

    const created = await request(`${url}/v1/users`, {
      method: 'POST',
      headers: admin,
      body: json({ username: 'leo', password: 'leo-password-1', role: 'cluster_member' }),
    });
    expect(created.status).toBe(200);
    const authorize = (password: string) =>
      request(`${url}/v1/users/authorize`, { method: 'POST', body: json({ username: 'leo', password }) });
    expect((await authorize('leo-password-1')).status).toBe(200);

    const policy = await request(`${url}/v1/cluster`, {
      method: 'PUT',
      headers: admin,
      body: json({ password_expiration_duration: 1 }),
    });
    expect(policy.status).toBe(200);
    t.advance(86_400 + 60);
    const expired = await authorize('leo-password-1');
    expect(expired.status).toBe(401);
    expect(expired.json.error_code).toBe('password_expired');

    const changed = await request(`${url}/v1/users/password`, {
      method: 'PUT',
      body: json({ username: 'leo', old_password: 'leo-password-1', new_password: 'leo-password-2' }),
    });
    expect(changed.status).toBe(200);
    expect((await authorize('leo-password-2')).status).toBe(200);
    expect((await authorize('leo-password-1')).status).toBe(401);
  });
});

describe('lockout walk (tessera serve subprocess)', () => {
  let dataDir: string;
  let server: ServeProcess;
  afterEach(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('5 wrong passwords → locked → right one refused → admin unlocks → login works, twice (API, then CLI)', async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-lock-'));
    const env = {
      ...FAST_ARGON2_ENV,
      TESSERA_DATA_DIR: dataDir,
      TESSERA_ADMIN_USERNAME: 'root',
      TESSERA_ADMIN_PASSWORD: 'root-password',
    };
    server = await startServe(['--no-tls'], env);
    const admin = { authorization: basic('root', 'root-password') };
    const created = await request(`${server.url}/v1/users`, {
      method: 'POST',
      headers: admin,
      body: json({ username: 'mia', password: 'mia-password-1', role: 'db_viewer' }),
    });
    const uid = created.json.uid;
    const authorize = (password: string) =>
      request(`${server.url}/v1/users/authorize`, {
        method: 'POST',
        headers: { authorization: basic('mia', password) },
      });

    for (const unlock of [
      () => request(`${server.url}/v1/users/${uid}/unlock`, { method: 'POST', headers: admin }),
      () => runCli(['users', 'unlock', '--username', 'mia'], { env }),
    ]) {
      for (let i = 1; i <= 5; i++) expect((await authorize(`wrong-${i}`)).json.error_code).toBe('invalid_credentials');
      const refused = await authorize('mia-password-1');
      expect(refused.status).toBe(401);
      expect(refused.json.error_code).toBe('account_locked');
      await unlock();
      expect((await authorize('mia-password-1')).status).toBe(200);
    }

    const audit = server
      .stdout()
      .split('\n')
      .filter((l) => l.includes('"audit":"lockout"'));
    expect(audit).toHaveLength(2);
    expect(server.stdout()).not.toContain('mia-password-1');
  });
});
