import { X509Certificate } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { basic, FAST_ARGON2_ENV, request, runCli, type ServeProcess, startServe } from '../helpers/cli.js';

let dirs: string[] = [];
let servers: ServeProcess[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
  servers = [];
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-tls-'));
  dirs.push(dir);
  return dir;
}

async function serve(args: string[], env: Record<string, string>) {
  const server = await startServe(args, env);
  servers.push(server);
  return server;
}

describe('tessera serve over HTTPS (subprocess)', () => {
  it('makes a self-signed certificate on first start and serves with it, configured from the environment', async () => {
    const dataDir = tempDir();
    const server = await serve([], {
      ...FAST_ARGON2_ENV,
      TESSERA_DATA_DIR: dataDir,
      TESSERA_ADMIN_USERNAME: 'root@example.com',
      TESSERA_ADMIN_PASSWORD: 'root-password',
      TESSERA_API_LINE: '7.4',
    });
    expect(server.url).toMatch(/^https:\/\//);
    expect(server.stderr()).toContain('Created the first admin: root@example.com');
    expect(server.stderr()).not.toContain('root-password');

    const certFile = path.join(dataDir, 'tls', 'cert.pem');
    const cert = new X509Certificate(readFileSync(certFile));
    expect(cert.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(cert.subjectAltName).toContain('DNS:localhost');
    expect(statSync(path.join(dataDir, 'tls', 'key.pem')).mode & 0o077).toBe(0);

    const ca = readFileSync(certFile);
    const body = JSON.stringify({ username: 'root@example.com', password: 'root-password', ttl: 60 });
    const res = await request(`${server.url}/v1/users/authorize`, { method: 'POST', body, ca });
    expect(res.status).toBe(200);
    // Over TLS, browsers are told to stay on it; a token is never kept by a cache.
    expect(res.headers['strict-transport-security']).toBe('max-age=31536000');
    expect(res.headers['cache-control']).toBe('no-store');
    const users = await request(`${server.url}/v1/users`, {
      ca,
      headers: { authorization: `JWT ${res.json.access_token}` },
    });
    expect([users.status, users.headers['cache-control']]).toEqual([200, 'no-store']);
    // TESSERA_API_LINE=7.4: the header format is not this server's.
    const header = await request(`${server.url}/v1/users/authorize`, {
      method: 'POST',
      headers: { authorization: basic('root@example.com', 'root-password') },
      ca,
    });
    expect(header.status).toBe(400);

    await expect(request(`${server.url}/healthz`)).rejects.toThrow(/self.signed|certificate/i);

    const token = await runCli(
      [
        'token',
        '--url',
        server.url,
        '--username',
        'root@example.com',
        '--api-line',
        '7.4',
        '--ca',
        certFile,
        '--password-stdin',
      ],
      { input: 'root-password' },
    );
    expect(token.code).toBe(0);
    const untrusted = await runCli(
      ['token', '--url', server.url, '--username', 'root@example.com', '--password-stdin'],
      {
        input: 'root-password',
      },
    );
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toContain('--insecure');
  });

  it('answers plain HTTP on its port with a message that it speaks HTTPS, and keeps serving HTTPS', async () => {
    const dataDir = tempDir();
    const server = await serve([], { ...FAST_ARGON2_ENV, TESSERA_DATA_DIR: dataDir });
    const plain = server.url.replace('https:', 'http:');
    const res = await request(`${plain}/healthz`);
    expect(res.status).toBe(400);
    expect(res.headers.connection).toBe('close');
    expect(res.json).toEqual({ error_code: 'https_required', message: expect.stringContaining('speaks HTTPS') });
    const ca = readFileSync(path.join(dataDir, 'tls', 'cert.pem'));
    expect((await request(`${server.url}/healthz`, { ca })).status).toBe(200);
    const token = await runCli(['token', '--url', plain, '--username', 'admin@tessera.local', '--password-stdin'], {
      input: 'x',
    });
    expect(token.code).toBe(1);
    expect(token.stderr).toMatch(/https_required.*use an https:\/\/ URL/);
  });

  it('answers headers too large with 431, not a reset, to a Node.js https client (20 tries)', async () => {
    const dataDir = tempDir();
    const server = await serve([], { ...FAST_ARGON2_ENV, TESSERA_DATA_DIR: dataDir });
    const ca = readFileSync(path.join(dataDir, 'tls', 'cert.pem'));
    const outcomes = new Map<string, number>();
    for (let i = 0; i < 20; i++) {
      const outcome = await request(`${server.url}/v1/users`, { ca, headers: { 'x-big': 'a'.repeat(20_000) } }).then(
        (res) => `${res.status} ${res.json?.error_code}`,
        (err: NodeJS.ErrnoException) => err.code ?? String(err),
      );
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
    expect(Object.fromEntries(outcomes)).toEqual({ '431 headers_too_large': 20 });
  });

  it('serves a given certificate with --tls-cert/--tls-key', async () => {
    const first = tempDir();
    const firstServer = await serve([], { ...FAST_ARGON2_ENV, TESSERA_DATA_DIR: first });
    await firstServer.stop();
    servers = [];
    const own = tempDir();
    copyFileSync(path.join(first, 'tls', 'cert.pem'), path.join(own, 'my-cert.pem'));
    copyFileSync(path.join(first, 'tls', 'key.pem'), path.join(own, 'my-key.pem'));

    const dataDir = tempDir();
    const server = await serve(
      ['--tls-cert', path.join(own, 'my-cert.pem'), '--tls-key', path.join(own, 'my-key.pem')],
      { ...FAST_ARGON2_ENV, TESSERA_DATA_DIR: dataDir },
    );
    const health = await request(`${server.url}/healthz`, { ca: readFileSync(path.join(own, 'my-cert.pem')) });
    expect(health.status).toBe(200);
    expect(() => statSync(path.join(dataDir, 'tls'))).toThrow();
  });

  it('refuses a bad configuration with a clear message and no start', async () => {
    const res = await runCli(['serve', '--listen', 'nowhere', '--data-dir', tempDir()]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--listen must look like HOST:PORT');
    const half = await runCli(['serve', '--tls-cert', 'x.pem', '--data-dir', tempDir()]);
    expect(half.code).toBe(2);
    expect(half.stderr).toContain('--tls-cert and --tls-key must be given together');
  });
});

describe('tessera --help', () => {
  it.each([[[]], [['serve']], [['users']], [['users', 'add']], [['token']]])('answers for %j', async (args) => {
    const res = await runCli([...args, '--help']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('Usage: tessera');
  });

  it('lists for each command only the options that apply to it', async () => {
    const commands = [
      'serve',
      'users add',
      'users set-password',
      'users list',
      'users unlock',
      'users delete',
      'users expire-password',
      'keys list',
      'keys rotate',
    ];
    const texts = await Promise.all(commands.map(async (c) => (await runCli([...c.split(' '), '--help'])).stdout));
    const help = Object.fromEntries(commands.map((c, i) => [c, texts[i]!]));
    for (const hashes of ['serve', 'users add', 'users set-password'])
      expect(help[hashes], hashes).toContain('--argon2-memory');
    for (const reads of commands.slice(3)) {
      expect(help[reads], reads).toContain('--database-url');
      expect(help[reads], reads).not.toContain('--argon2');
    }
    expect(help['keys list']).not.toContain('--key-activation-delay');
    expect(help['keys rotate']).toContain('--key-activation-delay');
    expect(help.serve).toMatch(/PostgreSQL[\s\S]*--redis-url/);
  });
});
