import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type ClientCertificate,
  issue,
  makeCa,
  type ProxiedMethod,
  type ProxiedRequest,
  type TestCa,
  viaProxy,
} from '../helpers/certificates.js';
import { login } from '../helpers/http.js';
import {
  BASE_DN,
  type Directory,
  directorySettings,
  group,
  groupDn,
  person,
  slapdAvailable,
  startDirectory,
} from '../helpers/slapd.mjs';
import { decodeJwt, type TestTessera, testTessera } from '../helpers/test-tessera.js';

const SEED =
  person('alice', 'alice-pw-1') +
  person('bob', 'bob-pw-1') +
  person('carol', 'carol-pw-1') +
  group('ops', ['alice']) +
  group('viewers', ['alice', 'bob']) +
  group('unmapped', ['carol']);

/**
 * LDAP certificate logins (the product's `cba` on /v1/cluster/ldap, 8.0.20): a client
 * certificate the cluster trusts names a directory user, whose groups give its roles. A real
 * slapd, certificates made by openssl, presented through a trusted proxy's header.
 */
describe.skipIf(!slapdAvailable())('LDAP certificate login (real slapd, openssl certificates)', () => {
  let dir: Directory;
  let files: string;
  let ca: TestCa;
  let other: TestCa;
  const certs: Record<string, ClientCertificate> = {};
  let t: TestTessera;
  let admin: string;

  beforeAll(async () => {
    dir = await startDirectory(SEED);
    files = mkdtempSync(path.join(tmpdir(), 'tessera-ldap-cba-'));
    ca = makeCa(files, 'CBA Test CA');
    other = makeCa(files, 'Untrusted CA');
    certs.alice = issue(ca, 'alice', '/O=Example/CN=alice');
    certs.bob = issue(ca, 'bob', '/O=Example/CN=bob');
    certs.carol = issue(ca, 'carol', '/O=Example/CN=carol');
    certs.nobody = issue(ca, 'nobody', '/O=Example/CN=nobody');
    certs.forged = issue(other, 'forged', '/O=Example/CN=alice');
    // The identity in another attribute of the subject (its OU), the CN a display name.
    certs.byOu = issue(ca, 'by-ou', '/O=Example/OU=bob/CN=Bob Smith');
    certs.twoNames = issue(ca, 'two-names', '/O=Example/CN=bob/CN=alice');
  });
  afterAll(async () => {
    await dir?.stop();
    rmSync(files, { recursive: true, force: true });
  });

  beforeEach(async () => {
    t = await testTessera({
      tls: { enabled: false },
      mtls: { certHeader: 'x-client-cert', trustedProxies: ['127.0.0.1'] },
      authRateLimit: 0,
    });
    await t.addUser('root', 'root-password', 'admin');
    admin = await login(t, 'root', 'root-password');
    const trust = await send('PUT', '/v1/cluster/certificates', {
      auth: admin,
      body: { certificates: [{ name: 'mtls_trusted_ca', certificate: ca.pem }] },
    });
    expect(trust.status, JSON.stringify(trust.body)).toBe(200);
    expect(
      (await send('PUT', '/v1/cluster', { auth: admin, body: { mtls_certificate_authentication: true } })).status,
    ).toBe(200);
    for (const [name, dn, role] of [
      ['Ops', groupDn('ops'), 1],
      ['Viewers', groupDn('viewers'), 3],
    ] as const) {
      const made = await send('POST', '/v1/ldap_mappings', { auth: admin, body: { name, dn, role_uids: [role] } });
      expect(made.status, JSON.stringify(made.body)).toBe(200);
    }
  });
  afterEach(() => t.close());

  const send = (method: ProxiedMethod, url: string, o?: ProxiedRequest) => viaProxy(t, method, url, o);
  const certificateLogin = (cert: ClientCertificate) => send('POST', '/v1/users/authorize', { cert });
  const configure = async (extra: Record<string, unknown>) => {
    const put = await send('PUT', '/v1/cluster/ldap', {
      auth: admin,
      body: { ...directorySettings(dir.url, { cache_ttl: 60 }), ...extra },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    return put.body;
  };

  it("logs a directory user in by the CN of a trusted certificate, as the docs' example sets it; its groups give its roles", async () => {
    expect((await certificateLogin(certs.alice!)).status).toBe(401); // cba off: nobody's certificate
    // The docs' example (certificate-based-authentication.md), with the directory's settings.
    const set = await configure({
      cba: true,
      cba_identity_source: 'subject_cn',
      control_plane: true,
      data_plane: true,
    });
    expect(set).toMatchObject({ cba: true, cba_identity_source: 'subject_cn' });
    const alice = await certificateLogin(certs.alice!);
    expect(alice.status, JSON.stringify(alice.body)).toBe(200);
    const claims = decodeJwt(alice.body.access_token).payload;
    expect(claims).toMatchObject({ username: 'alice', roles: ['admin', 'cluster_viewer'] });
    // The same account as her directory password's.
    const byPassword = await send('POST', '/v1/users/authorize', {
      body: { username: 'alice', password: 'alice-pw-1' },
    });
    expect(decodeJwt(byPassword.body.access_token).payload.uid).toBe(claims.uid);
    // On any route, the certificate alone.
    expect((await send('GET', '/v1/users', { cert: certs.alice })).status).toBe(200);
    expect((await send('GET', '/v1/users', { cert: certs.bob })).status).toBe(403); // a viewer
  });

  it('names the user by the subject attribute of cba_identity_oid', async () => {
    await configure({ cba: true, cba_identity_source: 'subject_oid', cba_identity_oid: '2.5.4.11' }); // organizationalUnitName
    const bob = await certificateLogin(certs.byOu!);
    expect(bob.status, JSON.stringify(bob.body)).toBe(200);
    expect(decodeJwt(bob.body.access_token).payload).toMatchObject({ username: 'bob', roles: ['cluster_viewer'] });
    // A certificate without that attribute names nobody.
    expect((await certificateLogin(certs.alice!)).body.error_code).toBe('certificate_subject_unknown');
  });

  it('refuses a certificate the cluster does not trust, one naming nobody the directory has, and one whose user maps to no role', async () => {
    await configure({ cba: true });
    expect((await certificateLogin(certs.forged!)).body.error_code).toBe('certificate_untrusted');
    expect((await certificateLogin(certs.nobody!)).body.error_code).toBe('certificate_subject_unknown');
    // Two CNs: which one would it be? Neither.
    const two = await certificateLogin(certs.twoNames!);
    expect([two.body.error_code, two.body.message]).toEqual([
      'certificate_subject_unknown',
      expect.stringMatching(/more than one/),
    ]);
    const carol = await certificateLogin(certs.carol!);
    expect([carol.status, carol.body.error_code]).toEqual([401, 'certificate_subject_unknown']);
    expect(carol.body.message).toMatch(/no group mapped to a role/);
  });

  it('refuses a user the directory no longer has once cache_ttl has passed', async () => {
    await configure({ cba: true, cache_ttl: 60 });
    expect((await certificateLogin(certs.bob!)).status).toBe(200);
    await dir.modify(`dn: uid=bob,ou=people,${BASE_DN}\nchangetype: delete\n\n`);
    // Within cache_ttl the remembered answer stands; past it the directory is asked, and has no bob.
    t.advance(30);
    expect((await send('GET', '/v1/users/permissions', { cert: certs.bob })).status).toBe(200);
    t.advance(31);
    expect((await send('GET', '/v1/users/permissions', { cert: certs.bob })).status).toBe(401);
    expect((await certificateLogin(certs.bob!)).body.error_code).toBe('certificate_subject_unknown');
  });

  it("ends a directory user's certificate logins and tokens when the cluster stops trusting its CA", async () => {
    await configure({ cba: true });
    const token = (await certificateLogin(certs.alice!)).body.access_token;
    expect((await send('GET', '/v1/users/permissions', { cert: certs.alice })).status).toBe(200); // remembered now
    const untrust = await send('DELETE', '/v1/cluster/certificates/mtls_trusted_ca', { auth: admin });
    expect(untrust.status, JSON.stringify(untrust.body)).toBe(200);
    expect((await send('GET', '/v1/users/permissions', { cert: certs.alice })).status).toBe(401);
    expect((await send('GET', '/v1/users/permissions', { auth: `JWT ${token}` })).status).toBe(401);
  });

  it('checks the settings: subject_oid needs a dotted OID; cba may be turned off again', async () => {
    for (const body of [
      { cba: true, cba_identity_source: 'subject_oid' },
      { cba: true, cba_identity_source: 'subject_oid', cba_identity_oid: 'UID' },
      { cba_identity_source: 'subject_san' },
    ]) {
      const put = await send('PUT', '/v1/cluster/ldap', {
        auth: admin,
        body: { ...directorySettings(dir.url), ...body },
      });
      expect(put.status, JSON.stringify(body)).toBe(400);
    }
    await configure({ cba: true });
    expect((await certificateLogin(certs.alice!)).status).toBe(200);
    await configure({ cba: false });
    expect((await certificateLogin(certs.alice!)).body.error_code).toBe('certificate_subject_unknown');
  });
});
