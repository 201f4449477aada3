import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DOMParser } from '@xmldom/xmldom';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SignedXml } from 'xml-crypto';
import { call, login } from '../helpers/http.js';
import { selfSigned } from '../helpers/simplesamlphp.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
let dir: string;
let admin: string;
let sp: { certificate: string; key: string };
let idp: { certificate: string; key: string };

const IDP_METADATA = `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.example.com/metadata">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example.com/slo"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://idp.example.com/sso-post"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example.com/sso"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;
const base64 = (text: string) => Buffer.from(text).toString('base64');

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'tessera-sso-config-'));
  [sp, idp] = [selfSigned(dir, 'sp', 'tessera-sp'), selfSigned(dir, 'idp', 'idp')];
  t = await testTessera({ publicUrl: 'https://tessera.example.com:9443' });
  await t.addUser('root', 'root-password', 'admin');
  admin = await login(t, 'root', 'root-password');
});
afterEach(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const certificates = (...list: object[]) =>
  call(t, 'PUT', '/v1/cluster/certificates', { auth: admin, body: { certificates: list } });

describe('/v1/cluster/sso', () => {
  it("starts off, with the product's defaults and the SP's URLs from the public URL (the paths its REST reference writes)", async () => {
    const res = await call(t, 'GET', '/v1/cluster/sso', { auth: admin });
    expect(res.body).toEqual({
      control_plane: false,
      enforce_control_plane: false,
      protocol: 'saml2',
      issuer: { id: '', login_url: '', logout_url: '', metadata: '' },
      service: {
        address: 'https://tessera.example.com:9443',
        saml2: {
          entity_id: 'https://tessera.example.com:9443/sp',
          acs_url: 'https://tessera.example.com:9443/v1/cluster/sso/saml/acs',
          slo_url: 'https://tessera.example.com:9443/v1/cluster/sso/saml/slo',
        },
      },
    });
  });

  it('turns on only with the identity provider named (400 missing_param) and both certificates (406 missing_certificate)', async () => {
    const early = await call(t, 'PUT', '/v1/cluster/sso', { auth: admin, body: { control_plane: true } });
    expect([early.status, early.body.error_code]).toEqual([400, 'missing_param']);
    expect(early.body.message).toContain('issuer.id and issuer.login_url');
    const named = await call(t, 'POST', '/v1/cluster/sso/saml/metadata/idp', {
      auth: admin,
      body: { idp_metadata: base64(IDP_METADATA) },
    });
    expect(named.body.issuer).toEqual({
      id: 'https://idp.example.com/metadata',
      login_url: 'https://idp.example.com/sso',
      logout_url: 'https://idp.example.com/slo',
      metadata: base64(IDP_METADATA),
    });
    const noCerts = await call(t, 'PUT', '/v1/cluster/sso', { auth: admin, body: { control_plane: true } });
    expect([noCerts.status, noCerts.body.error_code]).toEqual([406, 'missing_certificate']);
    expect(noCerts.body.message).toMatch(/sso_service .* and sso_issuer/);
    expect(
      (
        await certificates(
          { name: 'sso_service', certificate: sp.certificate, key: sp.key },
          { name: 'sso_issuer', certificate: idp.certificate },
        )
      ).status,
    ).toBe(200);
    const on = await call(t, 'PUT', '/v1/cluster/sso', {
      auth: admin,
      body: { control_plane: true, service: { address: 'https://auth.example.com/' } },
    });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({
      control_plane: true,
      service: {
        address: 'https://auth.example.com',
        saml2: { acs_url: 'https://auth.example.com/v1/cluster/sso/saml/acs' },
      },
    });
    // What GET answers can be PUT back as it is (the read-only fields ignored).
    expect(
      (
        await call(t, 'PUT', '/v1/cluster/sso', {
          auth: admin,
          body: (await call(t, 'GET', '/v1/cluster/sso', { auth: admin })).body,
        })
      ).status,
    ).toBe(200);
    expect((await call(t, 'DELETE', '/v1/cluster/sso', { auth: admin })).status).toBe(200);
    expect((await call(t, 'GET', '/v1/cluster/sso', { auth: admin })).body.control_plane).toBe(false);
    expect((await call(t, 'GET', '/v1/cluster/certificates', { auth: admin })).body).toEqual({}); // both SSO certificates gone too
  });

  it('refuses metadata that is not base64 XML, and metadata without an identity provider that takes HTTP-Redirect', async () => {
    const upload = (idp_metadata: string) =>
      call(t, 'POST', '/v1/cluster/sso/saml/metadata/idp', { auth: admin, body: { idp_metadata } });
    for (const bad of ['not base64 at all!', base64('just text'), base64('<unclosed>')]) {
      expect((await upload(bad)).body.error_code, bad).toBe('saml_metadata_parsing_error');
    }
    expect(
      (await upload(base64('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "boom">]><x>&e;</x>'))).body.error_code,
    ).toBe('saml_metadata_parsing_error');
    expect(
      (await upload(base64('<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x"/>'))).body
        .error_code,
    ).toBe('saml_metadata_validation_error');
    expect(
      (await upload(base64(IDP_METADATA.replace(/<md:SingleSignOnService Binding="[^"]*HTTP-Redirect"[^>]*>/, ''))))
        .body,
    ).toMatchObject({
      error_code: 'saml_metadata_validation_error',
      message: expect.stringContaining('HTTP-Redirect'),
    });
    // Its URLs are checked as a PUT checks them: a script URL is no sign-in URL (and would block every later PUT).
    const script = await upload(
      base64(
        IDP_METADATA.replace(
          /(<md:SingleSignOnService Binding="[^"]*HTTP-Redirect" Location=")[^"]*/,
          '$1javascript:alert(1)',
        ),
      ),
    );
    expect(script.body).toMatchObject({
      error_code: 'saml_metadata_validation_error',
      message: expect.stringContaining('issuer.login_url'),
    });
    expect((await call(t, 'GET', '/v1/cluster/sso', { auth: admin })).body.issuer.id).toBe(''); // nothing changed
  });

  it('refuses bad URLs and addresses with a path, naming the field', async () => {
    const put = (body: object) => call(t, 'PUT', '/v1/cluster/sso', { auth: admin, body });
    expect((await put({ issuer: { login_url: 'javascript:alert(1)' } })).body.message).toMatch(
      /^issuer\.login_url must be an http\(s\) URL/,
    );
    expect((await put({ service: { address: 'https://tessera.example.com/base' } })).body.message).toMatch(
      /^service\.address is a base URL without a path/,
    );
    expect((await put({ issuer: { logout_url: 'https://user:pw@idp.example.com/slo' } })).status).toBe(400);
  });

  it("gives the SP metadata as the product's, signed with the sso_service key, once that certificate is there (406 before)", async () => {
    const before = await call(t, 'GET', '/v1/cluster/sso/saml/metadata/sp', { auth: admin });
    expect([before.status, before.body.error_code]).toEqual([406, 'missing_certificate']);
    await certificates({ name: 'sso_service', certificate: sp.certificate, key: sp.key });
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/cluster/sso/saml/metadata/sp',
      headers: { authorization: admin },
    });
    expect(res.headers['content-type']).toMatch(/^application\/samlmetadata\+xml/);
    const xml = res.body;
    const doc = new DOMParser().parseFromString(xml, 'text/xml');
    const root = doc.documentElement!;
    expect(root.getAttribute('entityID')).toBe('https://tessera.example.com:9443/sp');
    expect(new Date(root.getAttribute('validUntil')!).getTime()).toBe(
      new Date(new (await import('node:crypto')).X509Certificate(sp.certificate).validTo).getTime(),
    );
    const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
    const descriptor = doc.getElementsByTagNameNS(MD, 'SPSSODescriptor')[0]!;
    expect([descriptor.getAttribute('AuthnRequestsSigned'), descriptor.getAttribute('WantAssertionsSigned')]).toEqual([
      'true',
      'true',
    ]);
    expect(doc.getElementsByTagNameNS(MD, 'NameIDFormat')[0]!.textContent).toBe(
      'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
    );
    const endpoint = (tag: string) => {
      const e = doc.getElementsByTagNameNS(MD, tag)[0]!;
      return [e.getAttribute('Binding')!.split(':').pop(), e.getAttribute('Location')];
    };
    expect(endpoint('AssertionConsumerService')).toEqual([
      'HTTP-POST',
      'https://tessera.example.com:9443/v1/cluster/sso/saml/acs',
    ]);
    // The documented ones alone (the earlier paths are still served, no longer advertised).
    expect(
      ['AssertionConsumerService', 'SingleLogoutService'].map((tag) => doc.getElementsByTagNameNS(MD, tag).length),
    ).toEqual([1, 1]);
    expect(endpoint('SingleLogoutService')).toEqual([
      'HTTP-Redirect',
      'https://tessera.example.com:9443/v1/cluster/sso/saml/slo',
    ]);
    const requested = Array.from(doc.getElementsByTagNameNS(MD, 'RequestedAttribute')).map(
      (a) => `${a.getAttribute('Name')}${a.getAttribute('isRequired') === 'true' ? '*' : ''}`,
    );
    expect(requested).toEqual(['firstName*', 'lastName*', 'email*', 'redisRoleMapping']);
    // Signed with the service key: xml-crypto verifies it with the service certificate (and not with another).
    const verify = (certificate: string) => {
      const check = new SignedXml({ publicCert: certificate });
      check.loadSignature(doc.getElementsByTagNameNS('http://www.w3.org/2000/09/xmldsig#', 'Signature')[0]! as never);
      try {
        return check.checkSignature(xml);
      } catch {
        return false;
      }
    };
    expect(verify(sp.certificate)).toBe(true);
    expect(verify(idp.certificate)).toBe(false);
  });
});

describe('SSO certificates (/v1/cluster/certificates)', () => {
  it('takes sso_service with its key and sso_issuer without one, lists both, never a key', async () => {
    expect((await certificates({ name: 'sso_service', certificate: sp.certificate })).body).toMatchObject({
      error_code: 'invalid_certificate',
      message: expect.stringContaining('needs its private key'),
    });
    expect(
      (await certificates({ name: 'sso_service', certificate: sp.certificate, key: idp.key })).body.message,
    ).toContain("not the certificate's");
    expect(
      (await certificates({ name: 'sso_issuer', certificate: idp.certificate, key: idp.key })).body.message,
    ).toContain('give no key');
    // Every one checked before any is set.
    expect(
      (
        await certificates(
          { name: 'sso_issuer', certificate: idp.certificate },
          { name: 'sso_service', certificate: 'garbage', key: sp.key },
        )
      ).status,
    ).toBe(400);
    expect((await call(t, 'GET', '/v1/cluster/certificates', { auth: admin })).body).toEqual({});
    expect(
      (
        await certificates(
          { name: 'sso_service', certificate: sp.certificate, key: sp.key },
          { name: 'sso_issuer', certificate: idp.certificate },
        )
      ).status,
    ).toBe(200);
    const listed = await call(t, 'GET', '/v1/cluster/certificates', { auth: admin });
    expect(Object.keys(listed.body).sort()).toEqual(['sso_issuer_cert', 'sso_service_cert']);
    expect(JSON.stringify(listed.body)).not.toContain('PRIVATE KEY');
    expect((await call(t, 'DELETE', '/v1/cluster/certificates/sso_issuer', { auth: admin })).status).toBe(200);
    expect(Object.keys((await call(t, 'GET', '/v1/cluster/certificates', { auth: admin })).body)).toEqual([
      'sso_service_cert',
    ]);
  });

  it('keeps the service key sealed in the store when a master key is set', async () => {
    await t.close();
    t = await testTessera({ masterKey: Buffer.alloc(32, 7).toString('base64') });
    await t.addUser('root', 'root-password', 'admin');
    admin = await login(t, 'root', 'root-password');
    expect((await certificates({ name: 'sso_service', certificate: sp.certificate, key: sp.key })).status).toBe(200);
    const stored = await t.tessera.db
      .selectFrom('settings')
      .select('value')
      .where('key', '=', 'sso_service')
      .executeTakeFirstOrThrow();
    expect(stored.value).not.toContain('PRIVATE KEY');
    expect(stored.value).toContain(sp.certificate.split('\n')[1]);
  });
});

describe('who may see and change SSO', () => {
  it('lets every role but none see it (view_sso) and only an admin change it (config_sso)', async () => {
    await t.addUser('mgr', 'mgr-password-1', 'user_manager');
    await t.addUser('viewer', 'viewer-password-1', 'db_viewer');
    await t.addUser('nobody', 'nobody-password-1', 'none');
    expect((await call(t, 'GET', '/v1/cluster/sso', { auth: t.basic('viewer', 'viewer-password-1') })).status).toBe(
      200,
    );
    expect((await call(t, 'GET', '/v1/cluster/sso', { auth: t.basic('nobody', 'nobody-password-1') })).status).toBe(
      403,
    );
    expect(
      (
        await call(t, 'PUT', '/v1/cluster/sso', {
          auth: t.basic('mgr', 'mgr-password-1'),
          body: { enforce_control_plane: true },
        })
      ).status,
    ).toBe(403);
    expect((await call(t, 'DELETE', '/v1/cluster/sso', { auth: t.basic('mgr', 'mgr-password-1') })).status).toBe(403);
    const permissions = (await call(t, 'GET', '/v1/users/permissions', { auth: admin })).body;
    expect(JSON.stringify(permissions)).toContain('config_sso');
  });
});
