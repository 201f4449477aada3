import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/http.js';
import { simpleSamlPhpHere } from '../helpers/simplesamlphp.js';
import { browserAt, exchange, postAnswer, signIn, type SsoCluster, ssoCluster } from '../helpers/sso-cluster.js';
import { decodeJwt } from '../helpers/test-tessera.js';

const here = simpleSamlPhpHere();

describe.runIf(here)('SSO sign-in through a real identity provider (SimpleSAMLphp)', () => {
  let c: SsoCluster;
  let viewerRole: number;
  let memberRole: number;

  beforeAll(async () => {
    // Role uids are the store's built-in ones: read them from a store like the one the cluster will have.
    c = await ssoCluster([
      { username: 'alice', password: 'alice-pw', email: 'alice@example.com', firstName: 'Alice', roles: ['3', '999'] },
      { username: 'bob', password: 'bob-pw', email: 'bob@example.com', roles: [] },
      { username: 'carol', password: 'carol-pw', email: 'carol@example.com', roles: ['1'] },
      { username: 'dave', password: 'dave-pw', email: 'dave@example.com', roles: ['2'] },
    ]);
    const roles = await c.t.tessera.roles.list();
    viewerRole = roles.find((r) => r.uid === 3)!.uid;
    memberRole = roles.find((r) => r.uid === 2)!.uid;
  }, 60_000);
  afterAll(async () => {
    await c?.close();
    await c?.t.close();
  });

  it('makes the user at its first sign-in with the roles the IdP maps it to, and signs it in with a token like any other', async () => {
    const { token, location } = await signIn(c, 'alice', 'alice-pw');
    expect(location).toBe('/?sso=signed_in');
    const claims = decodeJwt(token!).payload;
    expect(claims).toMatchObject({ username: 'alice@example.com' });
    const me = await call(c.t, 'GET', `/v1/users/${claims.uid}`, { auth: `JWT ${token}` });
    expect(me.body).toMatchObject({ name: 'alice@example.com', email: 'alice@example.com', auth_method: 'sso', role_uids: [viewerRole] }); // 999: no such role, left out
    // Its token renews and ends as any other.
    expect((await call(c.t, 'POST', '/v1/users/refresh_jwt', { auth: `JWT ${token}`, body: {} })).status).toBe(200);
    // An SSO user has no password: a password login fails like any wrong one.
    expect((await call(c.t, 'POST', '/v1/users/authorize', { body: { username: 'alice@example.com', password: 'alice-pw' } })).body.error_code).toBe('invalid_credentials');
  });

  it('signs an existing user in as itself, its roles kept, the mapping ignored (as the product)', async () => {
    const made = await call(c.t, 'POST', '/v1/users', { auth: c.admin, body: { email: 'dave@example.com', password: 'dave-local-password-1', role_uids: [viewerRole] } });
    expect(made.status).toBe(200);
    const { token } = await signIn(c, 'dave', 'dave-pw');
    expect(decodeJwt(token!).payload.uid).toBe(made.body.uid);
    const dave = await c.t.tessera.users.getByUid(made.body.uid);
    expect(dave).toMatchObject({ roleUids: [viewerRole], authMethod: 'regular' });
    expect(memberRole).not.toBe(viewerRole);
  });

  it('makes no user for a person the IdP maps to no role, and says so to the console', async () => {
    const { token, location } = await signIn(c, 'bob', 'bob-pw');
    expect(token).toBeUndefined();
    expect(location).toBe('/?sso_error=sso_no_role');
    expect(await c.t.tessera.users.findByUsername('bob@example.com')).toBeUndefined();
  });

  it('takes an answer nobody asked for (IdP-initiated), once', async () => {
    const browser = browserAt(c);
    const started = `${new URL(c.idp.entityId).origin}/simplesaml/saml2/idp/SSOService.php?spentityid=${encodeURIComponent('http://tessera.test/sp')}`;
    const answer = await browser.signIn(started, 'carol', 'carol-pw');
    const first = await postAnswer(c.t, answer.SAMLResponse);
    expect(first.location).toBe('/?sso=signed_in');
    expect((await exchange(c.t, first.cookie)).statusCode).toBe(200);
    const again = await postAnswer(c.t, answer.SAMLResponse);
    expect([again.location, again.cookie]).toEqual(['/?sso_error=sso_refused', undefined]);
  });

  it('hands a sign-in over once, within a minute, to whoever holds the cookie', async () => {
    const answer = await browserAt(c).signIn((await c.t.app.inject({ method: 'GET', url: '/cluster/sso/saml/login' })).headers.location as string, 'alice', 'alice-pw');
    const { cookie } = await postAnswer(c.t, answer.SAMLResponse);
    expect((await exchange(c.t, undefined)).statusCode).toBe(401);
    expect((await exchange(c.t, 'tessera_sso=made-up')).json().error_code).toBe('sso_refused');
    const taken = await exchange(c.t, cookie);
    expect(taken.statusCode).toBe(200);
    expect(taken.headers['set-cookie']).toMatch(/^tessera_sso=; Path=\/v1\/sso; Max-Age=0; HttpOnly; SameSite=Strict/);
    expect((await exchange(c.t, cookie)).statusCode).toBe(401); // once
    const later = await browserAt(c).signIn((await c.t.app.inject({ method: 'GET', url: '/cluster/sso/saml/login' })).headers.location as string, 'alice', 'alice-pw');
    const { cookie: stale } = await postAnswer(c.t, later.SAMLResponse);
    c.t.advance(61);
    expect((await exchange(c.t, stale)).statusCode).toBe(401);
    c.t.advance(-61);
  });
});
