import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, FAST_ARGON2_ENV, request, runCli, type ServeProcess, startServe } from '../helpers/cli.js';

/** The way out of an expired password, from the terminal: `tessera passwd` against the real server. */
describe('tessera passwd', () => {
  let server: ServeProcess;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-passwd-'));
  const env = {
    ...FAST_ARGON2_ENV,
    TESSERA_DATA_DIR: dataDir,
    TESSERA_ADMIN_USERNAME: 'root',
    TESSERA_ADMIN_PASSWORD: 'root-password',
  };
  const authorize = (password: string) =>
    request(`${server.url}/v1/users/authorize`, {
      method: 'POST',
      headers: { authorization: basic('nora', password) },
    });

  beforeAll(async () => {
    server = await startServe(['--no-tls'], env);
    expect(
      (await runCli(['users', 'add', '--username', 'nora', '--password-stdin'], { env, input: 'nora-password-1' }))
        .code,
    ).toBe(0);
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('replaces an expired password, and the login answer says how', async () => {
    expect((await runCli(['users', 'expire-password', '--username', 'nora'], { env })).code).toBe(0);
    const expired = await authorize('nora-password-1');
    expect(expired.json.error_code).toBe('password_expired');
    expect(expired.json.message).toContain('PUT /v1/users/password');
    expect(expired.json.message).toContain('tessera passwd');

    const changed = await runCli(['passwd', '--url', server.url, '--username', 'nora', '--password-stdin'], {
      input: 'nora-password-1\nnora-password-2\n',
    });
    expect(changed.stderr).toContain('is changed');
    expect(changed.code).toBe(0);
    expect((await authorize('nora-password-2')).status).toBe(200);
    expect((await authorize('nora-password-1')).status).toBe(401);
  });

  it('says what the server refused, and changes nothing', async () => {
    const wrong = await runCli(['passwd', '--url', server.url, '--username', 'nora', '--password-stdin'], {
      input: 'not-the-password\nnora-password-3\n',
    });
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/^tessera: the server refused \(401 invalid_credentials\)/);
    const weak = await runCli(['passwd', '--url', server.url, '--username', 'nora', '--password-stdin'], {
      input: 'nora-password-2\nshort\n',
    });
    expect(weak.stderr).toMatch(/password_not_complex/);
    expect((await authorize('nora-password-2')).status).toBe(200);
  });
});
