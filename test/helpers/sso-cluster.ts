import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { call, login } from './http.js';
import { IdpBrowser } from './saml-browser.js';
import { type IdpUser, selfSigned, startIdp, type TestIdp } from './simplesamlphp.js';
import { type TestTessera, testTessera } from './test-tessera.js';

/** Where the tests' Tessera says it is reached (the identity provider posts there; the tests post for it). */
export const ADDRESS = 'http://tessera.test';
/** The consumer and logout URLs the product's REST reference writes (advertised), and those Tessera advertised before (still served). */
export const ACS_URL = `${ADDRESS}/v1/cluster/sso/saml/acs`;
export const SLO_URL = `${ADDRESS}/v1/cluster/sso/saml/slo`;
export const EARLIER_ACS_URL = `${ADDRESS}/cluster/sso/saml/acs`;
export const EARLIER_SLO_URL = `${ADDRESS}/cluster/sso/saml/slo`;
export const ENTITY_ID = `${ADDRESS}/sp`;

export interface SsoCluster {
  t: TestTessera;
  idp: TestIdp;
  /** The admin's Authorization. */
  admin: string;
  sp: { certificate: string; key: string };
  /** The consumer and logout URLs the identity provider was set up with. */
  acsUrl: string;
  sloUrl: string;
  close(): Promise<void>;
}

/**
 * A Tessera with SSO on, trusting a real SimpleSAMLphp that trusts it back; `users` are the IdP's.
 * The IdP is set up from the service provider's metadata (the URLs it advertises), or, `earlier`,
 * as one set up before with the URLs Tessera advertised then.
 */
export async function ssoCluster(
  users: IdpUser[],
  overrides: Parameters<typeof testTessera>[0] = {},
  t?: TestTessera,
  setUp: 'advertised' | 'earlier' = 'advertised',
): Promise<SsoCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-sp-'));
  const sp = selfSigned(dir, 'sp', 'tessera-sp');
  const idp = await startIdp(users);
  t ??= await testTessera({ publicUrl: ADDRESS, ...overrides });
  if (!(await t.tessera.users.findByUsername('root'))) await t.addUser('root', 'root-password', 'admin');
  const admin = await login(t, 'root', 'root-password');
  const certs = await call(t, 'PUT', '/v1/cluster/certificates', {
    auth: admin,
    body: {
      certificates: [
        { name: 'sso_service', certificate: sp.certificate, key: sp.key },
        { name: 'sso_issuer', certificate: idp.certificate },
      ],
    },
  });
  expect(certs.status, JSON.stringify(certs.body)).toBe(200);
  const metadata = await call(t, 'POST', '/v1/cluster/sso/saml/metadata/idp', {
    auth: admin,
    body: { idp_metadata: Buffer.from(await idp.metadataXml()).toString('base64') },
  });
  expect(metadata.status, JSON.stringify(metadata.body)).toBe(200);
  const spMetadata = await t.app.inject({
    method: 'GET',
    url: '/v1/cluster/sso/saml/metadata/sp',
    headers: { authorization: admin },
  });
  expect(spMetadata.statusCode, spMetadata.body).toBe(200);
  const location = (element: string) =>
    new RegExp(`<(?:\\w+:)?${element}\\s[^>]*Location="([^"]+)"`).exec(spMetadata.body)?.[1] ?? '';
  const [acsUrl, sloUrl] =
    setUp === 'earlier'
      ? [EARLIER_ACS_URL, EARLIER_SLO_URL]
      : [location('AssertionConsumerService'), location('SingleLogoutService')];
  expect([acsUrl, sloUrl]).toEqual([expect.stringMatching(/^http/), expect.stringMatching(/^http/)]);
  idp.trustSp({ entityId: ENTITY_ID, acsUrl, sloUrl, certificate: sp.certificate });
  const on = await call(t, 'PUT', '/v1/cluster/sso', { auth: admin, body: { control_plane: true } });
  expect(on.status, JSON.stringify(on.body)).toBe(200);
  return {
    t,
    idp,
    admin,
    sp,
    acsUrl,
    sloUrl,
    close: async () => {
      await idp.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A browser at the identity provider of this cluster. */
export const browserAt = (c: SsoCluster) => new IdpBrowser(new URL(c.idp.entityId).origin);

/** What GET /v1/cluster/sso/saml/login (or the earlier path) does: where it sends the browser (the IdP, with a signed AuthnRequest), and the cookie of the browser that asked. */
export async function startSignIn(
  t: TestTessera,
  path = '/v1/cluster/sso/saml/login',
): Promise<{ url: string; start: string }> {
  const res = await t.app.inject({ method: 'GET', url: path });
  expect(res.statusCode, res.body).toBe(302);
  const setCookie = [res.headers['set-cookie'] ?? []].flat().find((c) => c.startsWith('tessera_sso_start='));
  expect(setCookie).toMatch(/^tessera_sso_start=[\w-]{43}; Path=\/v1\/sso; Max-Age=180; HttpOnly; SameSite=Strict/);
  return { url: res.headers.location as string, start: setCookie!.split(';')[0]! };
}

/** Where GET /v1/cluster/sso/saml/login sends the browser. */
export const loginUrl = async (t: TestTessera): Promise<string> => (await startSignIn(t)).url;

/** Posts an answer to the consumer (by default the documented one) as the IdP's auto-submit form would: where the browser is sent next, and the sign-in cookie. */
export async function postAnswer(
  t: TestTessera,
  SAMLResponse: string,
  path = '/v1/cluster/sso/saml/acs',
): Promise<{ location: string; cookie?: string }> {
  const res = await t.app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ SAMLResponse }).toString(),
  });
  expect(res.statusCode).toBe(303);
  const setCookie = [res.headers['set-cookie'] ?? []].flat().find((c) => c.startsWith('tessera_sso='));
  return { location: res.headers.location as string, ...(setCookie && { cookie: setCookie.split(';')[0] }) };
}

/** The console's last step: the browser's cookies (the code's, and the one of the browser that started the sign-in) for a token. */
export function exchange(t: TestTessera, cookies: (string | undefined)[], body: Record<string, unknown> = {}) {
  const cookie = cookies.filter(Boolean).join('; ');
  return t.app.inject({
    method: 'POST',
    url: '/v1/sso/exchange',
    headers: cookie ? { cookie } : {},
    payload: JSON.stringify(body),
  });
}

/** A whole SP-initiated sign-in of an IdP user: the token, or what the console was told. */
export async function signIn(
  c: SsoCluster,
  username: string,
  password: string,
  browser = browserAt(c),
): Promise<{ token?: string; location: string; SAMLResponse: string }> {
  const { url, start } = await startSignIn(c.t);
  const answer = await browser.signIn(url, username, password);
  expect(answer.action).toBe(c.acsUrl); // where the IdP was set up to post, whichever consumer that is
  const { location, cookie } = await postAnswer(c.t, answer.SAMLResponse, new URL(answer.action).pathname);
  if (!cookie) return { location, SAMLResponse: answer.SAMLResponse };
  const exchanged = await exchange(c.t, [cookie, start]);
  expect(exchanged.statusCode, exchanged.body).toBe(200);
  return { token: exchanged.json().access_token, location, SAMLResponse: answer.SAMLResponse };
}
