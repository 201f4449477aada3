import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeConfig } from '../../src/config/config.js';
import { openTessera } from '../../src/tessera.js';
import {
  type ClientCertificate,
  intermediate,
  issue,
  issueAnySubject,
  makeCa,
  type ProxiedMethod,
  type ProxiedRequest,
  type TestCa,
  viaProxy,
} from '../helpers/certificates.js';
import { login } from '../helpers/http.js';
import { decodeJwt, FAST_ARGON2, type TestTessera, testTessera } from '../helpers/test-tessera.js';

/**
 * Client certificates through the proxy's header (what a TLS-terminating proxy passes on),
 * against a real Tessera in-process: certificates and CAs made by openssl. The same realm
 * answers certificates presented over TLS (test/e2e/certificate-auth.test.ts).
 */
describe('the certificate realm', () => {
  let dir: string;
  let ca: TestCa;
  let other: TestCa;
  const certs: Record<string, ClientCertificate> = {};
  let t: TestTessera;
  let admin: string;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tessera-cert-realm-'));
    ca = makeCa(dir, 'Realm Test CA');
    other = makeCa(dir, 'Another CA');
    const mid = intermediate(ca, dir, 'Realm Test Intermediate');
    const tight = intermediate(ca, dir, 'Realm Pathlen Zero', { pathLen0: true });
    const below = intermediate(tight, dir, 'Below Pathlen Zero');
    certs.bot = issue(ca, 'bot', '/O=Example/CN=bot');
    certs.chained = issue(mid, 'chained', '/O=Example/CN=chained', { chain: [mid] });
    certs.tooDeep = issue(below, 'too-deep', '/O=Example/CN=too-deep', { chain: [below, tight] });
    certs.noSubject = issueAnySubject(ca, 'no-subject', '/', [
      'subjectAltName=DNS:bot.example',
      'extendedKeyUsage=clientAuth',
    ]);
    certs.garbled = issueAnySubject(ca, 'garbled', '/O=Example/CN=bot', [
      '2.5.29.19=DER:0102',
      'extendedKeyUsage=clientAuth',
    ]); // basicConstraints that do not parse
    certs.caItself = { ...certs.bot!, pem: ca.pem, cert: Buffer.from(ca.pem) };
    certs.otherCa = { ...certs.bot!, pem: other.pem, cert: Buffer.from(other.pem) };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  beforeEach(async () => {
    t = await testTessera({
      tls: { enabled: false },
      mtls: { certHeader: 'x-client-cert', trustedProxies: ['127.0.0.1'] },
      authRateLimit: 0,
    });
    await t.addUser('root', 'root-password', 'admin');
    admin = await login(t, 'root', 'root-password');
    expect(
      (
        await send('PUT', '/v1/cluster/certificates', {
          auth: admin,
          body: { certificates: [{ name: 'mtls_trusted_ca', certificate: ca.pem }] },
        })
      ).status,
    ).toBe(200);
    expect(
      (await send('PUT', '/v1/cluster', { auth: admin, body: { mtls_certificate_authentication: true } })).status,
    ).toBe(200);
    for (const name of ['bot', 'chained', 'too-deep']) {
      const made = await send('POST', '/v1/users', {
        auth: admin,
        body: { auth_method: 'certificate', certificate_subject_line: `CN=${name},O=Example`, role: 'cluster_member' },
      });
      expect(made.status, JSON.stringify(made.body)).toBe(200);
    }
  });
  afterEach(() => t.close());

  const send = (method: ProxiedMethod, url: string, o?: ProxiedRequest) => viaProxy(t, method, url, o);
  const certificateLogin = async (cert: ClientCertificate) => send('POST', '/v1/users/authorize', { cert });

  it('logs a certificate user in, also through an intermediate the client sends', async () => {
    const bot = await certificateLogin(certs.bot!);
    expect(bot.status, JSON.stringify(bot.body)).toBe(200);
    expect(decodeJwt(bot.body.access_token).payload).toMatchObject({ username: 'bot', roles: ['cluster_member'] });
    expect((await certificateLogin(certs.chained!)).status).toBe(200);
    expect((await send('GET', '/v1/users/permissions', { cert: certs.bot })).status).toBe(200);
  });

  it('answers a leaf sent without the intermediate that makes its path the same, also after it came with it (no cache hit)', async () => {
    const leafOnly = { ...certs.chained!, pem: certs.chained!.pem.split(/(?<=-----END CERTIFICATE-----)/)[0]! };
    expect(leafOnly.pem).not.toBe(certs.chained!.pem);
    const before = await certificateLogin(leafOnly);
    expect(before.status).toBe(401);
    expect((await certificateLogin(certs.chained!)).status).toBe(200);
    expect((await send('GET', '/v1/users/permissions', { cert: certs.chained })).status).toBe(200);
    const after = await certificateLogin(leafOnly);
    expect([after.status, after.body]).toEqual([before.status, before.body]);
    expect((await send('GET', '/v1/users/permissions', { cert: leafOnly })).status).toBe(401);
  });

  it("counts every full check of a certificate toward the client's throttle, on a request as on a login (a remembered one is not)", async () => {
    await t.close();
    t = await testTessera({
      tls: { enabled: false },
      mtls: { certHeader: 'x-client-cert', trustedProxies: ['127.0.0.1'] },
      authRateLimit: 3,
    });
    await t.addUser('root', 'root-password', 'admin');
    admin = await login(t, 'root', 'root-password');
    await send('PUT', '/v1/cluster/certificates', {
      auth: admin,
      body: { certificates: [{ name: 'mtls_trusted_ca', certificate: ca.pem }] },
    });
    await send('PUT', '/v1/cluster', { auth: admin, body: { mtls_certificate_authentication: true } });
    // Nobody's certificate (no user has its subject), over and over on a route: each a full check.
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await send('GET', '/v1/users/permissions', { cert: certs.bot })).status);
    expect(statuses).toEqual([401, 401, 429, 429]); // the admin's login took one of the three
  });

  it('refuses a certificate without a subject with 401 on every route, never 500', async () => {
    for (const [method, url] of [
      ['POST', '/v1/users/authorize'],
      ['GET', '/v1/users/permissions'],
      ['GET', '/v1/cluster'],
      ['GET', '/v1/users'],
    ] as const) {
      const res = await send(method, url, { cert: certs.noSubject });
      expect([res.status, res.body.error_code], url).toEqual([401, 'certificate_subject_unknown']);
    }
  });

  it('refuses a CA that is not in DER (a non-minimal outer length, which OpenSSL reads and no signature covers)', async () => {
    const der = Buffer.from(ca.pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, ''), 'base64');
    expect(der.subarray(0, 2).toString('hex')).toBe('3082'); // SEQUENCE, a two-byte length
    const stretched = Buffer.concat([Buffer.from([0x30, 0x84, 0x00, 0x00]), der.subarray(2)]); // the same length in four bytes
    const pem = `-----BEGIN CERTIFICATE-----\n${stretched.toString('base64')}\n-----END CERTIFICATE-----\n`;
    expect(new X509Certificate(pem).subject).toContain('CN=Realm Test CA'); // Node would take it
    const res = await send('PUT', '/v1/cluster/certificates', {
      auth: admin,
      body: { certificates: [{ name: 'mtls_trusted_ca', certificate: `${ca.pem}${pem}` }] },
    });
    expect([res.status, res.body.error_code]).toEqual([400, 'invalid_certificate']);
    expect(res.body.message).toMatch(/^mtls_trusted_ca: /); // which of a request's certificates is wrong
  });

  it('refuses a certificate whose extensions cannot be read with 401, never 500', async () => {
    const res = await certificateLogin(certs.garbled!);
    expect([res.status, res.body.error_code]).toEqual([401, 'certificate_untrusted']);
  });

  it("refuses a CA's own certificate as a client certificate, trusted or not", async () => {
    await send('POST', '/v1/users', {
      auth: admin,
      body: { auth_method: 'certificate', certificate_subject_line: 'CN=Realm Test CA', role: 'admin' },
    });
    for (const cert of [certs.caItself!, certs.otherCa!]) {
      const res = await certificateLogin(cert);
      expect([res.status, res.body.error_code]).toEqual([401, 'certificate_untrusted']);
      expect((await send('GET', '/v1/users', { cert })).status).toBe(401);
    }
  });

  it("refuses a chain that breaks a CA's path length (pathlen:0 with another CA below it), as OpenSSL does", async () => {
    const res = await certificateLogin(certs.tooDeep!);
    expect([res.status, res.body.error_code]).toEqual([401, 'certificate_untrusted']);
  });

  it('answers 409 to a certificate_subject_line that another user has, on create and on update', async () => {
    const taken = await send('POST', '/v1/users', {
      auth: admin,
      body: {
        auth_method: 'certificate',
        certificate_subject_line: 'CN=bot,O=Example',
        role: 'db_viewer',
        name: 'bot-two',
      },
    });
    expect([taken.status, taken.body.error_code]).toEqual([409, 'name_already_exists']);
    const uid = decodeJwt((await certificateLogin(certs.chained!)).body.access_token).payload.uid;
    const update = await send('PUT', `/v1/users/${uid}`, {
      auth: admin,
      body: { certificate_subject_line: 'CN=bot,O=Example' },
    });
    expect([update.status, update.body.error_code]).toEqual([409, 'name_already_exists']);
  });

  it('checks a certificate against the trust as the store has it now, not a copy another node changed a moment ago', async () => {
    expect((await certificateLogin(certs.bot!)).status).toBe(200); // this node's copy of the trust is fresh now
    // Another node on the same store replaces the trusted CA (and ends the certificate users' tokens).
    const node = await openTessera(makeConfig({ dataDir: t.dataDir, argon2: FAST_ARGON2 }));
    try {
      await node.certificateTrust.set({ uid: 1, username: 'root' }, other.pem, {
        ip: 'local',
        requestId: 'other-node',
      });
    } finally {
      await node.close();
    }
    await t.tessera.revocations.poll(); // this node learns of the revocation (within half a second in service)
    const after = await certificateLogin(certs.bot!);
    expect([after.status, after.body.error_code]).toEqual([401, 'certificate_untrusted']);
  });

  describe('any change to what proves a certificate user ends its tokens and their refresh', () => {
    const changes: [string, (uid: number) => Promise<{ status: number }>][] = [
      [
        'its certificate_subject_line changes',
        (uid) =>
          send('PUT', `/v1/users/${uid}`, {
            auth: admin,
            body: { certificate_subject_line: 'CN=bot-renewed,O=Example' },
          }),
      ],
      [
        'certificate logins are turned off',
        () => send('PUT', '/v1/cluster', { auth: admin, body: { mtls_certificate_authentication: false } }),
      ],
      [
        'the subjects let in change',
        () =>
          send('PUT', '/v1/cluster', {
            auth: admin,
            body: { mtls_client_cert_subject_validation_type: 'san_cn', mtls_authorized_subjects: [{ CN: 'bot' }] },
          }),
      ],
      ['the trusted CA is removed', () => send('DELETE', '/v1/cluster/certificates/mtls_trusted_ca', { auth: admin })],
      [
        'the trusted CA is replaced',
        () =>
          send('PUT', '/v1/cluster/certificates', {
            auth: admin,
            body: { certificates: [{ name: 'mtls_trusted_ca', certificate: other.pem }] },
          }),
      ],
    ];
    for (const [what, change] of changes) {
      it(what, async () => {
        const token = `JWT ${(await certificateLogin(certs.bot!)).body.access_token}`;
        const uid = decodeJwt(token.slice(4)).payload.uid as number;
        const spare = `JWT ${(await certificateLogin(certs.bot!)).body.access_token}`;
        expect((await send('GET', '/v1/users/permissions', { auth: token })).status).toBe(200);
        expect((await change(uid)).status).toBe(200);
        expect((await send('GET', '/v1/users/permissions', { auth: token })).status).toBe(401);
        expect((await send('POST', '/v1/users/refresh_jwt', { auth: spare, body: {} })).status).toBe(401);
        // The admin's own token (a password's) is untouched.
        expect((await send('GET', '/v1/users/permissions', { auth: admin })).status).toBe(200);
      });
    }
  });
});
