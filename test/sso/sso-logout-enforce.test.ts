import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/http.js';
import { simpleSamlPhpHere } from '../helpers/simplesamlphp.js';
import { browserAt, SLO_URL, type SsoCluster, signIn, ssoCluster } from '../helpers/sso-cluster.js';
import { decodeJwt } from '../helpers/test-tessera.js';

const here = simpleSamlPhpHere();
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
/** The browser arriving at a logout URL of this cluster (its path and query). */
const slo = (c: SsoCluster, url: string) =>
  c.t.app.inject({ method: 'GET', url: new URL(url).pathname + new URL(url).search });

describe.runIf(here)(
  'SSO: signing out at the identity provider, SSO required, and tokens that end with the trust that made them',
  () => {
    let c: SsoCluster;

    beforeAll(async () => {
      c = await ssoCluster([
        { username: 'alice', password: 'alice-pw', email: 'alice@example.com', roles: ['3'] },
        { username: 'erin', password: 'erin-pw', email: 'erin@example.com', roles: ['3'] },
        { username: 'frank', password: 'frank-pw', email: 'frank@example.com', roles: [] },
        { username: 'odd', password: 'odd-pw', email: 'o:dd@example.com', roles: ['3'] },
      ]);
      expect(
        (
          await call(c.t, 'POST', '/v1/users', {
            auth: c.admin,
            // An admin: it keeps its password after its first SSO sign-in (a non-admin's ends there).
            body: { email: 'frank@example.com', password: 'frank-local-password-1', role: 'admin' },
          })
        ).status,
      ).toBe(200);
      await c.t.addUser('viewer', 'viewer-password-1', 'db_viewer');
    }, 60_000);
    afterAll(async () => {
      await c?.close();
      await c?.t.close();
    });

    it('signs out at the identity provider too (SP-initiated): a signed LogoutRequest out, its signed answer back to the documented SLO URL, the token ended', async () => {
      const browser = browserAt(c);
      const { token } = await signIn(c, 'alice', 'alice-pw', browser);
      const out = await call(c.t, 'POST', '/v1/sso/logout', { auth: `JWT ${token}`, body: {} });
      expect(out.status).toBe(200);
      const logoutUrl = new URL(out.body.logout_url);
      expect(logoutUrl.origin).toBe(new URL(c.idp.entityId).origin);
      expect([...logoutUrl.searchParams.keys()]).toEqual(
        expect.arrayContaining(['SAMLRequest', 'SigAlg', 'Signature']),
      );
      expect(
        (await call(c.t, 'GET', `/v1/users/${decodeJwt(token!).payload.uid}`, { auth: `JWT ${token}` })).status,
      ).toBe(401);

      const { next } = await browser.follow(logoutUrl.toString());
      expect(next?.startsWith(`${SLO_URL}?`)).toBe(true);
      const back = await slo(c, next!);
      expect([back.statusCode, back.headers.location]).toEqual([303, '/?sso=signed_out']);
      // The IdP's session ended: the next sign-in asks for the password again.
      const again = await browser.follow(
        (await c.t.app.inject({ method: 'GET', url: '/v1/cluster/sso/saml/login' })).headers.location as string,
      );
      expect(await again.res.text()).toMatch(/name="password"/);
    });

    it("refuses a logout answer without its signature, or another request's answer changed", async () => {
      const browser = browserAt(c);
      const { token } = await signIn(c, 'erin', 'erin-pw', browser);
      const out = await call(c.t, 'POST', '/v1/sso/logout', { auth: `JWT ${token}`, body: {} });
      const { next } = await browser.follow(out.body.logout_url);
      const answer = new URL(next!);
      const unsigned = new URL(answer);
      unsigned.searchParams.delete('Signature');
      expect((await slo(c, unsigned.toString())).headers.location).toBe('/?sso_error=idp_logout_refused');
      const changed = new URL(answer);
      changed.searchParams.set('RelayState', 'elsewhere');
      expect((await slo(c, changed.toString())).headers.location).toBe('/?sso_error=idp_logout_refused');
      // A LogoutRequest of the IdP's own (IdP-initiated logout) is not supported, as in the product.
      expect((await slo(c, `${SLO_URL}?SAMLRequest=abc`)).headers.location).toBe('/?sso_error=idp_logout_unsupported');
    });

    it('makes no user of an email that could not be one here (a ":" cannot travel in Basic credentials)', async () => {
      const { token, location } = await signIn(c, 'odd', 'odd-pw');
      expect([token, location]).toEqual([undefined, '/?sso_error=sso_refused']);
      expect(await c.t.tessera.users.findByUsername('o:dd@example.com')).toBeUndefined();
    });
    it("with enforce_control_plane, refuses passwords to users who are not admins (a login or Basic, remembered or not) and ends their password sessions, never an admin's", async () => {
      // Before: the viewer's password is remembered (a Basic call) and has a session.
      expect(
        (await call(c.t, 'GET', '/v1/users/permissions', { auth: basic('viewer', 'viewer-password-1') })).status,
      ).toBe(200);
      const before = (
        await call(c.t, 'POST', '/v1/users/authorize', { body: { username: 'viewer', password: 'viewer-password-1' } })
      ).body.access_token;
      expect(
        (await call(c.t, 'PUT', '/v1/cluster/sso', { auth: c.admin, body: { enforce_control_plane: true } })).status,
      ).toBe(200);
      try {
        expect(
          (await call(c.t, 'GET', '/v1/users/permissions', { auth: basic('viewer', 'viewer-password-1') })).body
            .error_code,
        ).toBe('sso_required');
        expect((await call(c.t, 'POST', '/v1/users/refresh_jwt', { auth: `JWT ${before}`, body: {} })).status).toBe(
          401,
        );
        expect((await call(c.t, 'GET', '/v1/users', { auth: c.admin })).status).toBe(200); // the admin who turned it on stays signed in
        const login = await call(c.t, 'POST', '/v1/users/authorize', {
          body: { username: 'viewer', password: 'viewer-password-1' },
        });
        expect([login.status, login.body.error_code]).toEqual([401, 'sso_required']);
        const wrong = await call(c.t, 'POST', '/v1/users/authorize', {
          body: { username: 'viewer', password: 'not-the-password' },
        });
        expect(wrong.body.error_code).toBe('invalid_credentials'); // a wrong password learns nothing of the account
        expect(
          (await call(c.t, 'GET', '/v1/users', { auth: basic('viewer', 'viewer-password-1') })).body.error_code,
        ).toBe('sso_required');
        expect(
          (await call(c.t, 'POST', '/v1/users/authorize', { body: { username: 'root', password: 'root-password' } }))
            .status,
        ).toBe(200);
        expect((await call(c.t, 'GET', '/v1/sso', {})).body).toEqual({
          control_plane: true,
          enforce_control_plane: true,
          login_url: '/v1/cluster/sso/saml/login',
        });
      } finally {
        await call(c.t, 'PUT', '/v1/cluster/sso', { auth: c.admin, body: { enforce_control_plane: false } });
      }
      expect(
        (
          await call(c.t, 'POST', '/v1/users/authorize', {
            body: { username: 'viewer', password: 'viewer-password-1' },
          })
        ).status,
      ).toBe(200);
    });

    it("ends the tokens of everyone SSO let in when SSO is turned off or the identity provider's certificate changes, and no one else's", async () => {
      const viewer = (
        await call(c.t, 'POST', '/v1/users/authorize', { body: { username: 'viewer', password: 'viewer-password-1' } })
      ).body.access_token;
      const works = async (token: string) =>
        (await call(c.t, 'POST', '/v1/users/refresh_jwt', { auth: `JWT ${token}`, body: {} })).status === 200;

      const first = (await signIn(c, 'alice', 'alice-pw')).token!;
      expect(await works(first)).toBe(true);
      expect(
        (
          await call(c.t, 'PUT', '/v1/cluster/certificates', {
            auth: c.admin,
            body: { certificates: [{ name: 'sso_issuer', certificate: c.sp.certificate }] },
          })
        ).status,
      ).toBe(200);
      expect(await works(first)).toBe(false);
      expect(
        (
          await call(c.t, 'PUT', '/v1/cluster/certificates', {
            auth: c.admin,
            body: { certificates: [{ name: 'sso_issuer', certificate: c.idp.certificate }] },
          })
        ).status,
      ).toBe(200);

      const second = (await signIn(c, 'alice', 'alice-pw')).token!;
      const local = (await signIn(c, 'frank', 'frank-pw')).token!; // a user of Tessera's own, signed in by SSO
      // …who also signs in and out with its password elsewhere: that logout does not make its SSO session forgotten.
      const password = (
        await call(c.t, 'POST', '/v1/users/authorize', {
          body: { username: 'frank@example.com', password: 'frank-local-password-1' },
        })
      ).body.access_token;
      expect((await call(c.t, 'POST', '/v1/sso/logout', { auth: `JWT ${password}`, body: {} })).status).toBe(200);
      expect(
        (await call(c.t, 'PUT', '/v1/cluster/sso', { auth: c.admin, body: { control_plane: false } })).status,
      ).toBe(200);
      expect(await works(second)).toBe(false);
      expect(await works(local)).toBe(false);
      expect(await works(viewer)).toBe(true);
      for (const url of ['/v1/cluster/sso/saml/login', '/cluster/sso/saml/login'])
        expect((await c.t.app.inject({ method: 'GET', url })).headers.location).toBe('/?sso_error=sso_refused');
    });
  },
);
