import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ClientCertificate,
  intermediate,
  issue,
  makeCa,
  rfc2253Subject,
  type TestCa,
} from '../helpers/certificates.js';
import { basic, FAST_ARGON2_ENV, request, runCli, type ServeProcess, startServe } from '../helpers/cli.js';

const ADMIN = 'root';
const ADMIN_PASSWORD = 'Root-password-1';
const run = promisify(execFile);

interface Answer {
  status: number;
  json: any;
}

/** One HTTPS request from a client that presents `cert` (or none), to the real CLI server. */
function call(
  url: string,
  options: { method?: string; cert?: ClientCertificate; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      {
        method: options.method ?? 'GET',
        headers: options.headers,
        rejectUnauthorized: false, // the server's own certificate is the self-signed one of its data dir
        ...(options.cert && { cert: options.cert.cert, key: options.cert.key }),
        agent: false,
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, json: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(options.body === undefined ? undefined : JSON.stringify(options.body));
  });
}

describe('certificate authentication (real CLI server over HTTPS, certificates made by openssl)', () => {
  let dir: string;
  let ca: TestCa;
  let other: TestCa;
  let mid: TestCa;
  const certs: Record<string, ClientCertificate> = {};
  let server: ServeProcess;
  let dataDir: string;
  let adminToken: string;
  const admin = () => ({ authorization: `JWT ${adminToken}` });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tessera-mtls-'));
    ca = makeCa(dir, 'Tessera Test Client CA');
    other = makeCa(dir, 'Somebody Else CA');
    mid = intermediate(ca, dir, 'Tessera Test Intermediate');
    const day = 86_400_000;
    certs.bot = issue(ca, 'bot', '/O=Example/OU=automation/CN=ops-bot');
    certs.expired = issue(ca, 'expired', '/O=Example/OU=automation/CN=ops-bot', {
      start: new Date(Date.now() - 3 * day),
      end: new Date(Date.now() - day),
    });
    certs.future = issue(ca, 'future', '/O=Example/OU=automation/CN=ops-bot', {
      start: new Date(Date.now() + day),
      end: new Date(Date.now() + 2 * day),
    });
    certs.stranger = issue(ca, 'stranger', '/O=Example/CN=nobody-we-know');
    certs.untrusted = issue(other, 'untrusted', '/O=Example/OU=automation/CN=ops-bot');
    certs.chained = issue(mid, 'chained', '/O=Example/OU=automation/CN=chain-bot', { chain: [mid] });
    certs.server = issue(ca, 'serveronly', '/O=Example/OU=automation/CN=ops-bot', { extensions: 'server' });
    dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-mtls-data-'));
    server = await startServe(['--auth-rate-limit', '0', '--client-ca', ca.certFile], {
      ...FAST_ARGON2_ENV,
      TESSERA_DATA_DIR: dataDir,
      TESSERA_ADMIN_USERNAME: ADMIN,
      TESSERA_ADMIN_PASSWORD: ADMIN_PASSWORD,
    });
    adminToken = (
      await call(`${server.url}/v1/users/authorize`, {
        method: 'POST',
        headers: { authorization: basic(ADMIN, ADMIN_PASSWORD) },
      })
    ).json.access_token;
    const on = await call(`${server.url}/v1/cluster`, {
      method: 'PUT',
      headers: admin(),
      body: { mtls_certificate_authentication: true },
    });
    expect(on.status).toBe(200);
    for (const [name, subject_line] of [
      ['ops-bot', 'CN=ops-bot,OU=automation,O=Example'],
      ['chain-bot', 'CN=chain-bot,OU=automation,O=Example'],
    ]) {
      const made = await call(`${server.url}/v1/users`, {
        method: 'POST',
        headers: admin(),
        body: {
          auth_method: 'certificate',
          certificate_subject_line: subject_line,
          role: 'cluster_member',
          ...(name === 'chain-bot' && { name }),
        },
      });
      expect(made.status, JSON.stringify(made.json)).toBe(200);
    }
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("writes subjects as openssl's RFC 2253 and takes --client-ca as the trusted CA", async () => {
    expect(rfc2253Subject(certs.bot!.certFile)).toBe('CN=ops-bot,OU=automation,O=Example');
    const got = await call(`${server.url}/v1/cluster/certificates`, { headers: admin() });
    expect(got.json.mtls_trusted_ca_cert.trim()).toBe(ca.pem.trim());
  });

  it('logs a certificate user in with its certificate alone, and lets it call any route with it', async () => {
    const login = await call(`${server.url}/v1/users/authorize`, {
      method: 'POST',
      cert: certs.bot,
      body: { ttl: 120 },
    });
    expect(login.status, JSON.stringify(login.json)).toBe(200);
    const claims = JSON.parse(Buffer.from(login.json.access_token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ username: 'ops-bot', roles: ['cluster_member'] });
    const direct = await call(`${server.url}/v1/users/permissions`, { cert: certs.bot });
    expect(direct.status).toBe(200);
    const self = await call(`${server.url}/v1/users/${claims.uid}`, { cert: certs.bot });
    expect(self.json).toMatchObject({
      name: 'ops-bot',
      auth_method: 'certificate',
      certificate_subject_line: 'CN=ops-bot,OU=automation,O=Example',
    });
    // Through a chain the client sends (leaf + intermediate), to the trusted root.
    expect((await call(`${server.url}/v1/users/authorize`, { method: 'POST', cert: certs.chained })).status).toBe(200);
    // Refresh and logout take a token: a certificate alone is not one.
    expect((await call(`${server.url}/v1/users/logout`, { method: 'POST', cert: certs.bot })).json.error_code).toBe(
      'missing_credentials',
    );
    // curl --cert, as the README shows.
    const { stdout } = await run('curl', [
      '-sk',
      '--cert',
      certs.bot!.certFile,
      '--key',
      certs.bot!.keyFile,
      '-X',
      'POST',
      `${server.url}/v1/users/authorize`,
    ]);
    expect(JSON.parse(stdout).access_token).toBeTruthy();
  });

  it('refuses each bad certificate with its own code', async () => {
    const codeOf = async (cert?: ClientCertificate) => {
      const r = await call(`${server.url}/v1/users/authorize`, { method: 'POST', ...(cert && { cert }) });
      expect(r.status, JSON.stringify(r.json)).toBe(401);
      return r.json.error_code;
    };
    expect(await codeOf()).toBe('certificate_required');
    expect(await codeOf(certs.untrusted)).toBe('certificate_untrusted');
    expect(await codeOf(certs.server)).toBe('certificate_untrusted'); // not for client authentication
    expect(await codeOf(certs.expired)).toBe('certificate_expired');
    expect(await codeOf(certs.future)).toBe('certificate_not_yet_valid');
    expect(await codeOf(certs.stranger)).toBe('certificate_subject_unknown');
    // The same on a route.
    const route = await call(`${server.url}/v1/users/permissions`, { cert: certs.expired });
    expect([route.status, route.json.error_code]).toEqual([401, 'certificate_expired']);
  });

  it('lets explicit credentials win over a certificate, and a certificate user never log in with a password', async () => {
    // Basic of the admin with the bot's certificate: the admin, not the bot.
    const both = await call(`${server.url}/v1/users/authorize`, {
      method: 'POST',
      cert: certs.bot,
      headers: { authorization: basic(ADMIN, ADMIN_PASSWORD) },
    });
    expect(JSON.parse(Buffer.from(both.json.access_token.split('.')[1], 'base64url').toString()).username).toBe(ADMIN);
    // A wrong token with a good certificate: the token is judged, and refused.
    const badToken = await call(`${server.url}/v1/users/permissions`, {
      cert: certs.bot,
      headers: { authorization: 'JWT not-a-token' },
    });
    expect(badToken.status).toBe(401);
    expect(badToken.json.error_code).not.toMatch(/^certificate/);
    // No password for a certificate user: refused at creation, never accepted at login.
    const withPassword = await call(`${server.url}/v1/users`, {
      method: 'POST',
      headers: admin(),
      body: {
        name: 'pw-bot',
        auth_method: 'certificate',
        certificate_subject_line: 'CN=pw-bot',
        password: 'Some-password-123',
        role: 'db_viewer',
      },
    });
    expect([withPassword.status, withPassword.json.error_code]).toEqual([400, 'certificate_user']);
    const login = await call(`${server.url}/v1/users/authorize`, {
      method: 'POST',
      body: { username: 'ops-bot', password: '' + 'anything-at-all' },
    });
    expect(login.json.error_code).toBe('invalid_credentials');
    const setPassword = await call(`${server.url}/v1/users/password`, {
      method: 'PUT',
      headers: admin(),
      body: { username: 'ops-bot', new_password: 'Some-password-123' },
    });
    expect([setPassword.status, setPassword.json.error_code]).toEqual([400, 'certificate_user']);
  });

  it('lets in only the subjects the cluster names (san_cn, full_subject)', async () => {
    const set = (body: unknown) => call(`${server.url}/v1/cluster`, { method: 'PUT', headers: admin(), body });
    try {
      expect(
        (
          await set({
            mtls_client_cert_subject_validation_type: 'san_cn',
            mtls_authorized_subjects: [{ CN: 'someone-else' }],
          })
        ).status,
      ).toBe(200);
      await new Promise((r) => setTimeout(r, 50));
      expect(
        (await call(`${server.url}/v1/users/authorize`, { method: 'POST', cert: certs.bot })).json.error_code,
      ).toBe('certificate_subject_unknown');
      await set({ mtls_authorized_subjects: [{ CN: 'ops-bot' }] });
      expect((await call(`${server.url}/v1/users/authorize`, { method: 'POST', cert: certs.bot })).status).toBe(200);
      await set({
        mtls_client_cert_subject_validation_type: 'full_subject',
        mtls_authorized_subjects: [{ CN: 'ops-bot', OU: ['automation'], O: 'Other Org' }],
      });
      expect(
        (await call(`${server.url}/v1/users/authorize`, { method: 'POST', cert: certs.bot })).json.error_code,
      ).toBe('certificate_subject_unknown');
      await set({ mtls_authorized_subjects: [{ CN: 'ops-bot', OU: ['automation'], O: 'Example' }] });
      expect((await call(`${server.url}/v1/users/authorize`, { method: 'POST', cert: certs.bot })).status).toBe(200);
    } finally {
      await set({ mtls_client_cert_subject_validation_type: 'disabled', mtls_authorized_subjects: [] });
    }
  });

  it('adds a certificate user from the CLI while the server runs (tessera users add --certificate-subject)', async () => {
    const added = await runCli(
      ['users', 'add', '--certificate-subject', 'CN=cli-bot,O=Example', '--role', 'db_member', '--data-dir', dataDir],
      { env: FAST_ARGON2_ENV },
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toMatch(/Added cli-bot/);
    const cert = issue(ca, 'cli-bot', '/O=Example/CN=cli-bot');
    const login = await call(`${server.url}/v1/users/authorize`, { method: 'POST', cert });
    expect(login.status, JSON.stringify(login.json)).toBe(200);
  });

  it("ends a deleted certificate user's token, and refuses its certificate from then on", async () => {
    const made = await call(`${server.url}/v1/users`, {
      method: 'POST',
      headers: admin(),
      body: {
        name: 'short-lived',
        auth_method: 'certificate',
        certificate_subject_line: 'CN=short-lived,O=Example',
        role: 'db_viewer',
      },
    });
    expect(made.status).toBe(200);
    const cert = issue(ca, 'short-lived', '/O=Example/CN=short-lived');
    const token = (await call(`${server.url}/v1/users/authorize`, { method: 'POST', cert })).json.access_token;
    expect(
      (await call(`${server.url}/v1/users/permissions`, { headers: { authorization: `JWT ${token}` } })).status,
    ).toBe(200);
    expect((await call(`${server.url}/v1/users/${made.json.uid}`, { method: 'DELETE', headers: admin() })).status).toBe(
      200,
    );
    await expect
      .poll(
        async () =>
          (await call(`${server.url}/v1/users/permissions`, { headers: { authorization: `JWT ${token}` } })).status,
      )
      .toBe(401);
    expect((await call(`${server.url}/v1/users/authorize`, { method: 'POST', cert })).json.error_code).toBe(
      'certificate_subject_unknown',
    );
  });

  it("sets the trusted CA with the product's requests, refusing what is not a CA", async () => {
    const put = (body: unknown) =>
      call(`${server.url}/v1/cluster/certificates`, { method: 'PUT', headers: admin(), body });
    // A name that is none of the product's certificates (its docs' placeholder).
    expect((await put({ certificates: [{ name: 'certificate1', certificate: ca.pem }] })).json.error_code).toBe(
      'unknown_certificate',
    );
    expect(
      (await put({ certificates: [{ name: 'mtls_trusted_ca', certificate: certs.bot!.pem }] })).json.error_code,
    ).toBe('invalid_certificate');
    // The other CA only: the bot's certificate is no longer trusted, the stranger's from "other" is.
    const legacy = await call(`${server.url}/v1/cluster/update_cert`, {
      method: 'PUT',
      headers: admin(),
      body: { name: 'mtls_trusted_ca', certificate: other.pem },
    });
    expect(legacy.status).toBe(200);
    expect((await call(`${server.url}/v1/users/authorize`, { method: 'POST', cert: certs.bot })).json.error_code).toBe(
      'certificate_untrusted',
    );
    expect((await put({ certificates: [{ name: 'mtls_trusted_ca', certificate: ca.pem }] })).status).toBe(200);
    expect((await call(`${server.url}/v1/users/authorize`, { method: 'POST', cert: certs.bot })).status).toBe(200);
  });
});

describe('certificate authentication behind a TLS-terminating proxy', () => {
  let dir: string;
  let ca: TestCa;
  let cert: ClientCertificate;
  const servers: ServeProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tessera-mtls-proxy-'));
    ca = makeCa(dir, 'Proxy Test CA');
    cert = issue(ca, 'bot', '/O=Example/CN=proxied-bot');
  });
  afterAll(async () => {
    for (const s of servers) await s.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function serverTrusting(proxy: string): Promise<ServeProcess> {
    const dataDir = path.join(dir, `data-${servers.length}`);
    const s = await startServe(
      [
        '--no-tls',
        '--auth-rate-limit',
        '0',
        '--client-ca',
        ca.certFile,
        '--client-cert-header',
        'X-Client-Cert',
        '--trusted-proxy',
        proxy,
      ],
      {
        ...FAST_ARGON2_ENV,
        TESSERA_DATA_DIR: dataDir,
        TESSERA_ADMIN_USERNAME: ADMIN,
        TESSERA_ADMIN_PASSWORD: ADMIN_PASSWORD,
      },
    );
    servers.push(s);
    const headers = { authorization: basic(ADMIN, ADMIN_PASSWORD) };
    expect(
      (
        await request(`${s.url}/v1/cluster`, {
          method: 'PUT',
          headers,
          body: JSON.stringify({ mtls_certificate_authentication: true }),
        })
      ).status,
    ).toBe(200);
    const made = await request(`${s.url}/v1/users`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        auth_method: 'certificate',
        certificate_subject_line: 'CN=proxied-bot,O=Example',
        role: 'db_viewer',
      }),
    });
    expect(made.status).toBe(200);
    return s;
  }

  it('takes the certificate header from the named proxy address, URL-encoded as nginx sends it', async () => {
    const s = await serverTrusting('127.0.0.1');
    const header = encodeURIComponent(cert.pem);
    const ok = await request(`${s.url}/v1/users/authorize`, { method: 'POST', headers: { 'x-client-cert': header } });
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
  });

  it('refuses the header from any other address', async () => {
    const s = await serverTrusting('10.9.8.7');
    const refused = await request(`${s.url}/v1/users/authorize`, {
      method: 'POST',
      headers: { 'x-client-cert': encodeURIComponent(cert.pem) },
    });
    expect([refused.status, refused.json.error_code]).toEqual([401, 'certificate_untrusted']);
    expect(refused.json.message).toMatch(/trusted proxy/);
  });
});
