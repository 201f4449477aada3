import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/http.js';
import { decodeAnswer, encodeAnswer } from '../helpers/saml-forge.js';
import { simpleSamlPhpHere } from '../helpers/simplesamlphp.js';
import {
  ACS_URL,
  browserAt,
  EARLIER_ACS_URL,
  EARLIER_SLO_URL,
  exchange,
  postAnswer,
  type SsoCluster,
  signIn,
  ssoCluster,
  startSignIn,
} from '../helpers/sso-cluster.js';
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
      { username: 'erin', password: 'erin-pw', email: 'erin@example.com', roles: ['5'] },
    ]);
    const roles = await c.t.tessera.roles.list();
    viewerRole = roles.find((r) => r.uid === 3)!.uid;
    memberRole = roles.find((r) => r.uid === 2)!.uid;
  }, 60_000);
  afterAll(async () => {
    await c?.close();
    await c?.t.close();
  });

  it('is set up at the identity provider from the metadata: the documented consumer and logout URLs, which the sign-in goes through', async () => {
    expect([c.acsUrl, c.sloUrl]).toEqual([
      'http://tessera.test/v1/cluster/sso/saml/acs',
      'http://tessera.test/v1/cluster/sso/saml/slo',
    ]);
    // The request names no consumer: an identity provider posts to the one it was set up with, the earlier one included.
    const request = inflateRawSync(
      Buffer.from(new URL((await startSignIn(c.t)).url).searchParams.get('SAMLRequest')!, 'base64'),
    ).toString();
    expect(request).toMatch(/<samlp:AuthnRequest /);
    expect(request).not.toMatch(/AssertionConsumerServiceURL/);
    const answer = await browserAt(c).signIn((await startSignIn(c.t)).url, 'alice', 'alice-pw');
    expect(answer.action).toBe(ACS_URL);
  });

  it('makes the user at its first sign-in with the roles the IdP maps it to, and signs it in with a token like any other', async () => {
    const { token, location } = await signIn(c, 'alice', 'alice-pw');
    expect(location).toBe('/?sso=signed_in');
    const claims = decodeJwt(token!).payload;
    expect(claims).toMatchObject({ username: 'alice@example.com' });
    const me = await call(c.t, 'GET', `/v1/users/${claims.uid}`, { auth: `JWT ${token}` });
    expect(me.body).toMatchObject({
      name: 'alice@example.com',
      email: 'alice@example.com',
      auth_method: 'sso',
      role_uids: [viewerRole],
    }); // 999: no such role, left out
    // Its token renews and ends as any other.
    expect((await call(c.t, 'POST', '/v1/users/refresh_jwt', { auth: `JWT ${token}`, body: {} })).status).toBe(200);
    // An SSO user has no password: a password login fails like any wrong one.
    expect(
      (
        await call(c.t, 'POST', '/v1/users/authorize', {
          body: { username: 'alice@example.com', password: 'alice-pw' },
        })
      ).body.error_code,
    ).toBe('invalid_credentials');
  });

  it('signs an existing user in as itself, its roles kept, the mapping ignored (as the product); its passwords end there', async () => {
    // A user_manager plants a password account with a colleague's email before the colleague's first sign-in.
    await call(c.t, 'POST', '/v1/users', {
      auth: c.admin,
      body: { name: 'planter', password: 'planter-password-1', role: 'user_manager' },
    });
    const planter = `JWT ${(await call(c.t, 'POST', '/v1/users/authorize', { body: { username: 'planter', password: 'planter-password-1' } })).body.access_token}`;
    const made = await call(c.t, 'POST', '/v1/users', {
      auth: planter,
      body: { email: 'dave@example.com', password: 'dave-local-password-1', role_uids: [viewerRole] },
    });
    expect(made.status).toBe(200);
    const known = { username: 'dave@example.com', password: 'dave-local-password-1' };
    const planted = (await call(c.t, 'POST', '/v1/users/authorize', { body: known })).body.access_token;
    const { token } = await signIn(c, 'dave', 'dave-pw');
    expect(decodeJwt(token!).payload.uid).toBe(made.body.uid);
    const dave = await c.t.tessera.users.getByUid(made.body.uid);
    expect(dave).toMatchObject({ roleUids: [viewerRole], authMethod: 'sso' });
    expect(memberRole).not.toBe(viewerRole);
    // The planter's password and every token it gave are over; the person's own sign-in goes on.
    expect((await call(c.t, 'POST', '/v1/users/authorize', { body: known })).body.error_code).toBe(
      'invalid_credentials',
    );
    expect((await call(c.t, 'GET', `/v1/users/${made.body.uid}`, { auth: `JWT ${planted}` })).status).toBe(401);
    expect((await call(c.t, 'GET', `/v1/users/${made.body.uid}`, { auth: `JWT ${token}` })).status).toBe(200);
    expect((await c.t.tessera.users.getCredential(made.body.uid))!.passwords).toEqual([]);
    // A password can no longer be set on it: it is SSO's.
    const reset = await call(c.t, 'PUT', `/v1/users/${made.body.uid}`, {
      auth: planter,
      body: { password: 'Another-password-2' },
    });
    expect(reset.status).toBe(400);
    // Said in the event log.
    const events = (await call(c.t, 'GET', '/v1/logs', { auth: c.admin })).body as Record<string, unknown>[];
    expect(events.find((e) => e.type === 'user_updated' && e.uid === made.body.uid)).toBeDefined();
  });

  it("keeps an admin's password at its first SSO sign-in (the way in when the identity provider is down)", async () => {
    const made = await call(c.t, 'POST', '/v1/users', {
      auth: c.admin,
      body: { email: 'erin@example.com', password: 'erin-local-password-1', role: 'admin' },
    });
    const { token } = await signIn(c, 'erin', 'erin-pw');
    expect(decodeJwt(token!).payload.uid).toBe(made.body.uid);
    expect(await c.t.tessera.users.getByUid(made.body.uid)).toMatchObject({ authMethod: 'regular', roleUids: [1] });
    const login = await call(c.t, 'POST', '/v1/users/authorize', {
      body: { username: 'erin@example.com', password: 'erin-local-password-1' },
    });
    expect(login.status).toBe(200);
    // Its password expired: the password is refused, the identity provider's answer is not (it proves no password).
    await call(c.t, 'POST', `/v1/users/${made.body.uid}/expire-password`, { auth: c.admin });
    const expired = await call(c.t, 'POST', '/v1/users/authorize', {
      body: { username: 'erin@example.com', password: 'erin-local-password-1' },
    });
    expect(expired.body.error_code).toBe('password_expired');
    const sso = (await signIn(c, 'erin', 'erin-pw')).token!;
    expect(decodeJwt(sso).payload.uid).toBe(made.body.uid);
    // A fresh SSO sign-in proves no password: it does not stand in for the one it keeps.
    const change = await call(c.t, 'PUT', '/v1/users/password', {
      auth: `JWT ${sso}`,
      body: { new_password: 'a password the IdP chose' },
    });
    expect([change.status, change.body.error_code]).toEqual([400, 'invalid_request']);
  });

  it('makes no user for a person the IdP maps to no role, and says so to the console', async () => {
    const { token, location } = await signIn(c, 'bob', 'bob-pw');
    expect(token).toBeUndefined();
    expect(location).toBe('/?sso_error=sso_no_role');
    expect(await c.t.tessera.users.findByUsername('bob@example.com')).toBeUndefined();
  });

  it('takes an answer nobody asked for (IdP-initiated) once, after the person confirms the account it names', async () => {
    const browser = browserAt(c);
    const started = `${new URL(c.idp.entityId).origin}/simplesaml/saml2/idp/SSOService.php?spentityid=${encodeURIComponent('http://tessera.test/sp')}`;
    const answer = await browser.signIn(started, 'carol', 'carol-pw');
    const first = await postAnswer(c.t, answer.SAMLResponse);
    expect(first.location).toBe('/?sso=signed_in');
    const unconfirmed = await exchange(c.t, [first.cookie]);
    expect([unconfirmed.statusCode, unconfirmed.json().error_code]).toEqual([409, 'sso_confirm']);
    expect(unconfirmed.json().message).toContain('carol@example.com');
    expect(unconfirmed.headers['set-cookie']).toBeUndefined(); // the code stays for the confirmation
    expect((await exchange(c.t, [first.cookie], { confirm: true })).statusCode).toBe(200);
    const again = await postAnswer(c.t, answer.SAMLResponse);
    expect([again.location, again.cookie]).toEqual(['/?sso_error=sso_refused', undefined]);
  });

  it('hands a sign-in over once, within a minute, to the browser that asked for it', async () => {
    const { url, start } = await startSignIn(c.t);
    const answer = await browserAt(c).signIn(url, 'alice', 'alice-pw');
    const { cookie } = await postAnswer(c.t, answer.SAMLResponse);
    expect((await exchange(c.t, [])).statusCode).toBe(401);
    expect((await exchange(c.t, ['tessera_sso=made-up', start])).json().error_code).toBe('sso_refused');
    const taken = await exchange(c.t, [cookie, start]);
    expect(taken.statusCode).toBe(200);
    expect([taken.headers['set-cookie']].flat()).toEqual([
      expect.stringMatching(/^tessera_sso=; Path=\/v1\/sso; Max-Age=0; HttpOnly; SameSite=Strict/),
      expect.stringMatching(/^tessera_sso_start=; Path=\/v1\/sso; Max-Age=0; HttpOnly; SameSite=Strict/),
    ]);
    expect((await exchange(c.t, [cookie, start])).statusCode).toBe(401); // once
    const later = await startSignIn(c.t);
    const { cookie: stale } = await postAnswer(
      c.t,
      (await browserAt(c).signIn(later.url, 'alice', 'alice-pw')).SAMLResponse,
    );
    c.t.advance(61);
    expect((await exchange(c.t, [stale, later.start])).statusCode).toBe(401);
    c.t.advance(-61);
  });

  it("refuses a sign-in in another browser than the one that asked for it (a page of another site posting its own answer: login CSRF), also with the Response's InResponseTo removed", async () => {
    const attacker = await startSignIn(c.t);
    const answer = await browserAt(c).signIn(attacker.url, 'alice', 'alice-pw');
    const victim = await startSignIn(c.t); // the victim's browser, with a sign-in of its own under way (or none)
    const posted = await postAnswer(c.t, answer.SAMLResponse);
    for (const cookies of [[posted.cookie, victim.start], [posted.cookie]]) {
      const res = await exchange(c.t, cookies, { confirm: true });
      expect([res.statusCode, res.json().error_code]).toEqual([401, 'sso_refused']);
    }
    // node-saml checks the Response's InResponseTo only when there is one; the signed assertion's own still binds the answer.
    const again = await startSignIn(c.t);
    const stripped = decodeAnswer((await browserAt(c).signIn(again.url, 'alice', 'alice-pw')).SAMLResponse);
    const responseSignature = Array.from(stripped.documentElement!.childNodes).find(
      (n) => (n as Element).localName === 'Signature',
    );
    stripped.documentElement!.removeChild(responseSignature!); // the assertion's own signature stays
    stripped.documentElement!.removeAttribute('InResponseTo');
    const { location, cookie } = await postAnswer(c.t, encodeAnswer(stripped));
    expect(location).toBe('/?sso=signed_in');
    expect((await exchange(c.t, [cookie], { confirm: true })).json().error_code).toBe('sso_refused');
  });
});

describe.runIf(here)('SSO through an identity provider set up with the earlier addresses (/cluster/sso/saml/…)', () => {
  let c: SsoCluster;

  beforeAll(async () => {
    c = await ssoCluster(
      [{ username: 'alice', password: 'alice-pw', email: 'alice@example.com', roles: ['3'] }],
      {},
      undefined,
      'earlier',
    );
  }, 60_000);
  afterAll(async () => {
    await c?.close();
    await c?.t.close();
  });

  it('signs in (SP-initiated, from either login path, and IdP-initiated) and out through the earlier consumer and logout URLs', async () => {
    expect([c.acsUrl, c.sloUrl]).toEqual([EARLIER_ACS_URL, EARLIER_SLO_URL]);
    const browser = browserAt(c);
    const { token, location } = await signIn(c, 'alice', 'alice-pw', browser); // posts where the IdP sends it: the earlier consumer
    expect(location).toBe('/?sso=signed_in');
    expect(decodeJwt(token!).payload).toMatchObject({ username: 'alice@example.com' });
    // The earlier login path still starts a sign-in (a bookmark, a console of before).
    const earlier = await startSignIn(c.t, '/cluster/sso/saml/login');
    const answer = await browser.signIn(earlier.url, 'alice', 'alice-pw');
    expect(answer.action).toBe(EARLIER_ACS_URL);
    // Addressed to the earlier consumer, it is taken there only.
    expect((await postAnswer(c.t, answer.SAMLResponse, '/v1/cluster/sso/saml/acs')).location).toBe(
      '/?sso_error=sso_refused',
    );
    const taken = await postAnswer(c.t, answer.SAMLResponse, '/cluster/sso/saml/acs');
    expect(taken.location).toBe('/?sso=signed_in');
    const second = await exchange(c.t, [taken.cookie, earlier.start]);
    expect(second.statusCode, second.body).toBe(200);
    // IdP-initiated: posted to the earlier consumer too.
    const started = `${new URL(c.idp.entityId).origin}/simplesaml/saml2/idp/SSOService.php?spentityid=${encodeURIComponent('http://tessera.test/sp')}`;
    const unsolicited = await browserAt(c).signIn(started, 'alice', 'alice-pw');
    expect(unsolicited.action).toBe(EARLIER_ACS_URL);
    expect((await postAnswer(c.t, unsolicited.SAMLResponse, '/cluster/sso/saml/acs')).location).toBe('/?sso=signed_in');
    // Signing out: the IdP answers at the earlier logout URL, which still verifies it.
    const out = await call(c.t, 'POST', '/v1/sso/logout', { auth: `JWT ${second.json().access_token}`, body: {} });
    const { next } = await browser.follow(out.body.logout_url);
    expect(next?.startsWith(`${EARLIER_SLO_URL}?`)).toBe(true);
    const back = await c.t.app.inject({ method: 'GET', url: new URL(next!).pathname + new URL(next!).search });
    expect([back.statusCode, back.headers.location]).toEqual([303, '/?sso=signed_out']);
  });
});
