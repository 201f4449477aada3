import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/http.js';
import { decodeAnswer, encodeAnswer, byTag } from './helpers/saml-forge.js';
import { simpleSamlPhpHere } from './helpers/simplesamlphp.js';
import { browserAt, exchange, loginUrl, postAnswer, signIn, type SsoCluster, ssoCluster } from './helpers/sso-cluster.js';

const here = simpleSamlPhpHere();
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion';

describe.runIf(here)('scratch review', () => {
  let c: SsoCluster;
  beforeAll(async () => {
    c = await ssoCluster([
      { username: 'alice', password: 'alice-pw', email: 'alice@example.com', roles: ['3'] },
      { username: 'frank', password: 'frank-pw', email: 'frank@example.com', roles: [] },
    ]);
    expect((await call(c.t, 'POST', '/v1/users', { auth: c.admin, body: { email: 'frank@example.com', password: 'frank-local-password-1', role: 'db_viewer' } })).status).toBe(200);
    await c.t.addUser('viewer', 'viewer-password-1', 'db_viewer');
  }, 60_000);
  afterAll(async () => {
    await c?.close();
    await c?.t.close();
  });

  it('A: strip the unsigned Response@InResponseTo: the signed SubjectConfirmationData@InResponseTo is ignored, request not consumed', async () => {
    const answer = await browserAt(c).signIn(await loginUrl(c.t), 'alice', 'alice-pw');
    const doc = decodeAnswer(answer.SAMLResponse);
    const irt = doc.documentElement!.getAttribute('InResponseTo');
    const subj = byTag(doc, SAML, 'SubjectConfirmationData')[0]!.getAttribute('InResponseTo');
    console.log('Response IRT', irt, 'Subject IRT', subj);
    doc.documentElement!.removeAttribute('InResponseTo');
    // The request it answered expires (3 min of Tessera's clock): the stripped answer does not care.
    c.t.advance(200);
    const r = await postAnswer(c.t, encodeAnswer(doc));
    console.log('A stripped ->', r.location, !!r.cookie);
    const ex = await exchange(c.t, r.cookie);
    console.log('A exchange ->', ex.statusCode);
    c.t.advance(-200);
  });

  it('B: enforce_control_plane: remembered Basic credentials and refresh_jwt of a token made before', async () => {
    const me = await call(c.t, 'POST', '/v1/users/authorize', { body: { username: 'viewer', password: 'viewer-password-1' } });
    const token = me.body.access_token;
    console.log('B basic before', (await call(c.t, 'GET', '/v1/roles', { auth: basic('viewer', 'viewer-password-1') })).status);
    expect((await call(c.t, 'PUT', '/v1/cluster/sso', { auth: c.admin, body: { enforce_control_plane: true } })).status).toBe(200);
    try {
      const login = await call(c.t, 'POST', '/v1/users/authorize', { body: { username: 'viewer', password: 'viewer-password-1' } });
      console.log('B login after', login.status, login.body.error_code);
      const b = await call(c.t, 'GET', '/v1/roles', { auth: basic('viewer', 'viewer-password-1') });
      console.log('B basic after (remembered)', b.status, b.body?.error_code);
      let t = token;
      for (let i = 0; i < 3; i++) {
        const r = await call(c.t, 'POST', '/v1/users/refresh_jwt', { auth: `JWT ${t}`, body: {} });
        console.log('B refresh after', r.status);
        t = r.body.access_token ?? t;
      }
    } finally {
      await call(c.t, 'PUT', '/v1/cluster/sso', { auth: c.admin, body: { enforce_control_plane: false } });
    }
  });

  it('C: an SSO token of a local user outlives SSO off once any sign-out deleted its sso_sessions row', async () => {
    const works = async (token: string) => (await call(c.t, 'POST', '/v1/users/refresh_jwt', { auth: `JWT ${token}`, body: {} })).status;
    const ssoToken = (await signIn(c, 'frank', 'frank-pw')).token!;
    const pw = (await call(c.t, 'POST', '/v1/users/authorize', { body: { username: 'frank@example.com', password: 'frank-local-password-1' } })).body.access_token;
    // The console signs every session out through /v1/sso/logout (also on idle).
    const out = await call(c.t, 'POST', '/v1/sso/logout', { auth: `JWT ${pw}`, body: {} });
    console.log('C logout of the password token ->', out.status, out.body);
    expect((await call(c.t, 'PUT', '/v1/cluster/sso', { auth: c.admin, body: { control_plane: false } })).status).toBe(200);
    console.log('C SSO token refresh after SSO off ->', await works(ssoToken));
    expect((await call(c.t, 'PUT', '/v1/cluster/sso', { auth: c.admin, body: { control_plane: true } })).status).toBe(200);
  });

  it('D: huge/deep inputs at the consumer', async () => {
    const deep = `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">${'<a>'.repeat(150_000)}${'</a>'.repeat(150_000)}</samlp:Response>`;
    for (const [name, xml] of [
      ['deep', deep],
      ['doctype', '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">&b;</samlp:Response>'],
      ['notbase64', '%%%%'],
      ['attrs', `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ${Array.from({ length: 30000 }, (_, i) => `a${i}="x"`).join(' ')}/>`],
    ] as const) {
      const payload = name === 'notbase64' ? xml : Buffer.from(xml).toString('base64');
      const started = performance.now();
      const res = await c.t.app.inject({ method: 'POST', url: '/cluster/sso/saml/acs', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ SAMLResponse: payload }).toString() });
      console.log('D', name, payload.length, res.statusCode, res.headers.location, Math.round(performance.now() - started), 'ms');
    }
  });

  it('E: the one-time cookie from an answer posted by anyone (login CSRF) and the sso_error text', async () => {
    const answer = await browserAt(c).signIn(await loginUrl(c.t), 'alice', 'alice-pw');
    // The attacker keeps its own answer and makes the victim's browser post it (a cross-site form): nothing ties it to the browser that asked.
    const r = await postAnswer(c.t, answer.SAMLResponse);
    console.log('E', r.location, r.cookie?.slice(0, 20));
  });
});
