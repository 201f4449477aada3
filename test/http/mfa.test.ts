/**
 * A second factor (issue 37) against the real app: enrolment, both login wire formats, each code
 * once, ±1 step, recovery codes, the lockout, the mfa_token's bounds, Basic refused, a role that
 * requires it, a reset — and RFC 6238's test vectors through a real login.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI_CONTEXT } from '../../src/audit/audit-log.js';
import { codeAt } from '../../src/mfa/totp.js';
import { type Call, call, login } from '../helpers/http.js';
import { directorySettings, group, groupDn, person, slapdAvailable, startDirectory } from '../helpers/slapd.mjs';
import { decodeJwt, type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
let root: string;
let ops: number;
const OPS_PASSWORD = 'ops-password-1';

beforeEach(async () => {
  t = await testTessera();
  await t.addUser('root', 'root-password', 'admin');
  ops = (await t.tessera.userCreation.create(
    null,
    { username: 'ops', password: OPS_PASSWORD, role_uids: [2] },
    CLI_CONTEXT,
  ))!.uid;
  root = await login(t, 'root', 'root-password');
});
afterEach(() => t.close());

const now = () => t.tessera.clock();
const firstStep = (username = 'ops', password = OPS_PASSWORD, ip?: string, ttl?: number) =>
  t.app
    .inject({
      method: 'POST',
      url: '/v1/users/authorize',
      payload: { username, password, ...(ttl && { ttl }) },
      ...(ip && { remoteAddress: ip }),
    })
    .then((r) => ({ status: r.statusCode, body: r.json() }) as Call);
const secondStep = (body: Record<string, unknown>, ip?: string) =>
  t.app
    .inject({ method: 'POST', url: '/v1/users/authorize/mfa', payload: body, ...(ip && { remoteAddress: ip }) })
    .then((r) => ({ status: r.statusCode, body: r.json() }) as Call);

/** Enrols an authenticator app for ops (its own token): the secret and the recovery codes. */
async function enrolTotp(auth?: string): Promise<{ secret: string; codes: string[] }> {
  const token = auth ?? (await login(t, 'ops', OPS_PASSWORD));
  const started = await call(t, 'POST', `/v1/users/${ops}/mfa/totp`, { auth: token, body: { name: 'phone' } });
  expect(started.status).toBe(200);
  expect(started.body.otpauth_url).toMatch(/^otpauth:\/\/totp\/.*secret=/);
  const verified = await call(t, 'POST', `/v1/users/${ops}/mfa/totp/verify`, {
    auth: token,
    body: { code: codeAt(started.body.secret, now()) },
  });
  expect(verified.status).toBe(200);
  // The enrolment took this step's code: a login waits for the next one.
  t.advance(30);
  return { secret: started.body.secret, codes: verified.body.recovery_codes };
}

/** Both steps of a login with an authenticator app code: the token. */
async function loginWithCode(secret: string, ttl?: number): Promise<string> {
  const first = await firstStep('ops', OPS_PASSWORD, undefined, ttl);
  expect(first.body.error_code).toBe('mfa_required');
  const second = await secondStep({ mfa_token: first.body.mfa_token, code: codeAt(secret, now()) });
  expect(second.status).toBe(200);
  return `JWT ${second.body.access_token}`;
}

describe('an authenticator app', () => {
  it('is enrolled by the user with a first code, and brings ten recovery codes shown once', async () => {
    const { codes } = await enrolTotp();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    const listed = await call(t, 'GET', `/v1/users/${ops}/mfa`, { auth: root });
    expect(listed.body).toEqual({
      factors: [{ factor_id: expect.stringMatching(/^mf_/), type: 'totp', name: 'phone', created: expect.any(String) }],
      recovery_codes_remaining: 10,
      mfa_required: false,
    });
    expect(JSON.stringify(listed.body)).not.toMatch(/secret/);
    expect((await call(t, 'GET', `/v1/users/${ops}`, { auth: root })).body.mfa_enabled).toBe(true);
  });

  it('refuses a wrong first code, and a secret nobody proved is no factor', async () => {
    const token = await login(t, 'ops', OPS_PASSWORD);
    const started = await call(t, 'POST', `/v1/users/${ops}/mfa/totp`, { auth: token, body: {} });
    const wrong = String((Number(codeAt(started.body.secret, now())) + 1) % 1_000_000).padStart(6, '0');
    const refused = await call(t, 'POST', `/v1/users/${ops}/mfa/totp/verify`, { auth: token, body: { code: wrong } });
    expect([refused.status, refused.body.error_code]).toEqual([400, 'invalid_mfa_response']);
    expect((await firstStep()).status).toBe(200);
  });

  it('asks for the second step at a login in both wire formats, and the token says when (mfa_at)', async () => {
    const { secret } = await enrolTotp();
    const body = await firstStep();
    expect([body.status, body.body.error_code, body.body.methods]).toEqual([
      401,
      'mfa_required',
      ['totp', 'recovery_code'],
    ]);
    const basic = await call(t, 'POST', '/v1/users/authorize', { auth: t.basic('ops', OPS_PASSWORD), body: {} });
    expect([basic.status, basic.body.error_code]).toEqual([401, 'mfa_required']);
    const token = await secondStep({ mfa_token: basic.body.mfa_token, code: codeAt(secret, now()) });
    expect(token.status).toBe(200);
    const claims = decodeJwt(token.body.access_token).payload;
    expect(claims.mfa_at).toBe(Math.floor(now() / 1000));
    expect(claims.username).toBe('ops');
    // The first step's token is spent with the first answer.
    const again = await secondStep({ mfa_token: basic.body.mfa_token, code: codeAt(secret, now()) });
    expect([again.status, again.body.error_code]).toEqual([401, 'invalid_mfa_token']);
  });

  it('takes each code once, a step either side, not two', async () => {
    const { secret } = await enrolTotp();
    const used = await firstStep();
    expect((await secondStep({ mfa_token: used.body.mfa_token, code: codeAt(secret, now()) })).status).toBe(200);
    const replay = await firstStep();
    const replayed = await secondStep({ mfa_token: replay.body.mfa_token, code: codeAt(secret, now()) });
    expect([replayed.status, replayed.body.error_code]).toEqual([401, 'invalid_mfa_code']);
    t.advance(90);
    const next = await firstStep();
    expect((await secondStep({ mfa_token: next.body.mfa_token, code: codeAt(secret, now() - 30_000) })).status).toBe(
      200,
    );
    t.advance(60);
    const ahead = await firstStep();
    expect((await secondStep({ mfa_token: ahead.body.mfa_token, code: codeAt(secret, now() + 30_000) })).status).toBe(
      200,
    );
    t.advance(120);
    const far = await firstStep();
    expect((await secondStep({ mfa_token: far.body.mfa_token, code: codeAt(secret, now() - 60_000) })).status).toBe(
      401,
    );
    expect((await secondStep({ mfa_token: far.body.mfa_token, code: codeAt(secret, now() + 60_000) })).status).toBe(
      401,
    );
    expect((await secondStep({ mfa_token: far.body.mfa_token, code: codeAt(secret, now()) })).status).toBe(200);
  });

  it('takes a recovery code once, in any case and with or without dashes', async () => {
    const { codes } = await enrolTotp();
    const first = await firstStep();
    const code = codes[3]!.toUpperCase().replaceAll('-', '');
    expect((await secondStep({ mfa_token: first.body.mfa_token, recovery_code: code })).status).toBe(200);
    const again = await firstStep();
    const refused = await secondStep({ mfa_token: again.body.mfa_token, recovery_code: codes[3] });
    expect([refused.status, refused.body.error_code]).toEqual([401, 'invalid_mfa_code']);
    expect((await call(t, 'GET', `/v1/users/${ops}/mfa`, { auth: root })).body.recovery_codes_remaining).toBe(9);
  });

  it('counts wrong codes toward the lockout, as wrong passwords', async () => {
    await call(t, 'PUT', '/v1/cluster/policy', { auth: root, body: { login_lockout_threshold: 3 } });
    await enrolTotp();
    const first = await firstStep();
    for (let i = 0; i < 3; i++) await secondStep({ mfa_token: first.body.mfa_token, code: '000000' });
    const locked = await firstStep();
    expect([locked.status, locked.body.error_code]).toEqual([401, 'account_locked']);
  });

  it("counts wrong codes apart from the password's failures: a right password does not wipe them (a review found it did)", async () => {
    await call(t, 'PUT', '/v1/cluster/policy', { auth: root, body: { login_lockout_threshold: 3 } });
    await enrolTotp();
    const first = await firstStep();
    for (let i = 0; i < 2; i++) await secondStep({ mfa_token: first.body.mfa_token, code: '000000' });
    // Past the verified-credentials cache: the password is checked in full again (and its success clears its own count).
    t.advance(301);
    const again = await firstStep();
    expect(again.body.error_code).toBe('mfa_required');
    await secondStep({ mfa_token: again.body.mfa_token, code: '000000' });
    const locked = await firstStep();
    expect([locked.status, locked.body.error_code]).toEqual([401, 'account_locked']);
  });

  it("keeps the count of wrong codes through the user's own change of its password (a second review found it wiped)", async () => {
    await call(t, 'PUT', '/v1/cluster/policy', { auth: root, body: { login_lockout_threshold: 3 } });
    await enrolTotp();
    const first = await firstStep();
    for (let i = 0; i < 2; i++) await secondStep({ mfa_token: first.body.mfa_token, code: '000000' });
    const changed = await call(t, 'PUT', '/v1/users/password', {
      body: { username: 'ops', old_password: OPS_PASSWORD, new_password: 'ops-password-2' },
    });
    expect(changed.status).toBe(200);
    const again = await firstStep('ops', 'ops-password-2');
    await secondStep({ mfa_token: again.body.mfa_token, code: '000000' });
    const locked = await firstStep('ops', 'ops-password-2');
    expect([locked.status, locked.body.error_code]).toEqual([401, 'account_locked']);
    // An admin's unlock forgets them all.
    expect((await call(t, 'POST', `/v1/users/${ops}/unlock`, { auth: root, body: {} })).status).toBe(200);
    const freed = await firstStep('ops', 'ops-password-2');
    await secondStep({ mfa_token: freed.body.mfa_token, code: '000000' });
    expect((await firstStep('ops', 'ops-password-2')).body.error_code).toBe('mfa_required');
  });

  it('does not renew a token got before the user had a factor, nor make a key with it; one of both steps does both', async () => {
    const before = await login(t, 'ops', OPS_PASSWORD);
    const { secret } = await enrolTotp(before);
    const refresh = await call(t, 'POST', '/v1/users/refresh_jwt', { auth: before, body: {} });
    expect([refresh.status, refresh.body.error_code]).toEqual([401, 'mfa_required']);
    const key = { name: 'job', ttl_days: 30 };
    const byOld = await call(t, 'POST', `/v1/users/${ops}/api_keys`, { auth: before, body: key });
    expect([byOld.status, byOld.body.error_code]).toEqual([401, 'mfa_required']);
    const both = await loginWithCode(secret);
    expect((await call(t, 'POST', `/v1/users/${ops}/api_keys`, { auth: both, body: key })).status).toBe(200);
    const renewed = await call(t, 'POST', '/v1/users/refresh_jwt', { auth: both, body: {} });
    expect(renewed.status).toBe(200);
    expect(decodeJwt(renewed.body.access_token).payload.mfa_at).toBe(decodeJwt(both.slice(4)).payload.mfa_at);
  });

  it('refuses an mfa_token past five minutes, from another client, or after five wrong answers', async () => {
    const { secret } = await enrolTotp();
    const late = await firstStep();
    t.advance(301);
    expect((await secondStep({ mfa_token: late.body.mfa_token, code: codeAt(secret, now()) })).body.error_code).toBe(
      'invalid_mfa_token',
    );
    const moved = await firstStep('ops', OPS_PASSWORD, '10.0.0.1');
    const elsewhere = await secondStep({ mfa_token: moved.body.mfa_token, code: codeAt(secret, now()) }, '10.0.0.2');
    expect(elsewhere.body.error_code).toBe('invalid_mfa_token');
    const tried = await firstStep();
    for (let i = 0; i < 5; i++) await secondStep({ mfa_token: tried.body.mfa_token, code: '000000' });
    const spent = await secondStep({ mfa_token: tried.body.mfa_token, code: codeAt(secret, now()) });
    expect(spent.body.error_code).toBe('invalid_mfa_token');
    expect((await secondStep({ mfa_token: 'x'.repeat(43), code: '123456' })).body.error_code).toBe('invalid_mfa_token');
  });

  it('keeps no challenge past its time, nor a secret nobody proved past 15 minutes (the hourly prune)', async () => {
    await enrolTotp();
    await firstStep();
    // root's own secret, never proven.
    const pending = await call(t, 'POST', '/v1/users/1/mfa/totp', { auth: root, body: {} });
    expect(pending.status).toBe(200);
    const opsToken = (await firstStep()).body.mfa_token as string;
    expect(opsToken).toBeDefined();
    const count = async (table: 'mfa_challenges' | 'mfa_factors') =>
      Number(
        (
          await t.tessera.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect([await count('mfa_challenges'), await count('mfa_factors')]).toEqual([2, 2]);
    t.advance(16 * 60);
    await t.tessera.mfa.prune();
    expect([await count('mfa_challenges'), await count('mfa_factors')]).toEqual([0, 1]);
  });

  it('takes no password alone elsewhere: Basic is refused on every route but the first step', async () => {
    const { secret } = await enrolTotp();
    const basic = t.basic('ops', OPS_PASSWORD);
    for (const [method, url] of [
      ['GET', `/v1/users/${ops}`],
      ['GET', '/v1/users'],
      ['GET', `/v1/users/${ops}/mfa`],
      ['POST', `/v1/users/${ops}/mfa/totp`],
    ] as const) {
      const refused = await call(t, method, url, { auth: basic, ...(method === 'POST' && { body: {} }) });
      expect([url, refused.status, refused.body.error_code]).toEqual([url, 401, 'mfa_required']);
      expect(refused.body.message).toMatch(/token.*API key/);
    }
    // With the token of both steps, the same read answers.
    expect((await call(t, 'GET', `/v1/users/${ops}`, { auth: await loginWithCode(secret) })).status).toBe(200);
  });

  it('is removed by its user only with a second factor proven in the last 15 minutes; reset by an admin at any time', async () => {
    const { secret } = await enrolTotp();
    const token = await loginWithCode(secret, 3600);
    const { factors } = (await call(t, 'GET', `/v1/users/${ops}/mfa`, { auth: token })).body;
    // Fresh (proven a moment ago): new recovery codes are the user's to make.
    const renewed = await call(t, 'POST', `/v1/users/${ops}/mfa/recovery_codes`, { auth: token, body: {} });
    expect(renewed.body.recovery_codes).toHaveLength(10);
    t.advance(16 * 60);
    const stale = await call(t, 'DELETE', `/v1/users/${ops}/mfa/${factors[0].factor_id}`, { auth: token });
    expect([stale.status, stale.body.error_code]).toEqual([403, 'mfa_fresh_required']);
    root = await login(t, 'root', 'root-password'); // the first one's five minutes are over
    const reset = await call(t, 'DELETE', `/v1/users/${ops}/mfa`, { auth: root });
    expect(reset.status).toBe(200);
    expect((await firstStep()).status).toBe(200);
    expect((await call(t, 'GET', `/v1/users/${ops}/mfa`, { auth: root })).body).toEqual({
      factors: [],
      recovery_codes_remaining: 0,
      mfa_required: false,
    });
    await t.tessera.eventWriter.flush();
    const events = (await call(t, 'GET', '/v1/logs', { auth: root })).body as { type: string }[];
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['mfa_enrol', 'mfa_challenge', 'mfa_verify', 'mfa_reset']),
    );
    expect(JSON.stringify(events)).not.toContain(secret);
  });

  it('is enrolled only by its user, with a login: not by an admin for another, not with an API key', async () => {
    const forOps = await call(t, 'POST', `/v1/users/${ops}/mfa/totp`, { auth: root, body: {} });
    expect([forOps.status, forOps.body.error_code]).toEqual([403, 'unauthorized_action']);
    const opsToken = await login(t, 'ops', OPS_PASSWORD);
    const key = await call(t, 'POST', `/v1/users/${ops}/api_keys`, {
      auth: opsToken,
      body: { name: 'job', ttl_days: 1 },
    });
    const withKey = await call(t, 'POST', `/v1/users/${ops}/mfa/totp`, { auth: `Bearer ${key.body.key}`, body: {} });
    expect(withKey.status).toBe(403);
  });
});

describe('a role that requires a second factor', () => {
  it('gives its holder without one a token good only for enrolling, then asks for the factor', async () => {
    const role = await call(t, 'POST', '/v1/roles', {
      auth: root,
      body: { name: 'Operators', management: 'cluster_member', mfa_required: true },
    });
    expect([role.status, role.body.mfa_required]).toEqual([200, true]);
    expect(
      (await call(t, 'PUT', `/v1/users/${ops}`, { auth: root, body: { role_uids: [role.body.uid] } })).status,
    ).toBe(200);
    t.advance(2);
    const enrolOnly = await login(t, 'ops', OPS_PASSWORD);
    // No role in it, and inactive to a service that asks: good for enrolling at Tessera only.
    expect(decodeJwt(enrolOnly.slice(4)).payload).toMatchObject({ mfa_enrol: true, roles: [] });
    const introspected = await t.app.inject({
      method: 'POST',
      url: '/v1/introspect',
      headers: { authorization: root },
      payload: { token: enrolOnly.slice(4) },
    });
    expect(introspected.json()).toEqual({ active: false });
    const elsewhere = await call(t, 'GET', '/v1/users', { auth: enrolOnly });
    expect([elsewhere.status, elsewhere.body.error_code]).toEqual([403, 'mfa_enrolment_required']);
    expect((await call(t, 'GET', `/v1/users/${ops}`, { auth: enrolOnly })).status).toBe(200);
    expect((await call(t, 'GET', '/v1/users/1', { auth: enrolOnly })).status).toBe(403);
    expect((await call(t, 'POST', '/v1/users/refresh_jwt', { auth: enrolOnly, body: {} })).status).toBe(403);
    // Basic of the holder: refused everywhere but the login (which gives the token for enrolling).
    const basic = await call(t, 'GET', `/v1/users/${ops}`, { auth: t.basic('ops', OPS_PASSWORD) });
    expect([basic.status, basic.body.error_code]).toEqual([403, 'mfa_enrolment_required']);
    const { secret } = await enrolTotp(enrolOnly);
    const full = await loginWithCode(secret);
    expect(decodeJwt(full.slice(4)).payload.mfa_enrol).toBeUndefined();
    expect((await call(t, 'GET', '/v1/users', { auth: full })).status).toBe(403); // cluster_member: not a user reader
    expect((await call(t, 'GET', `/v1/users/${ops}/sessions`, { auth: full })).status).toBe(200);
  });

  it('ends the renewal of tokens its holders got before it required one', async () => {
    const before = await login(t, 'ops', OPS_PASSWORD);
    expect((await call(t, 'PUT', '/v1/roles/2', { auth: root, body: { mfa_required: true } })).status).toBe(200);
    t.advance(2);
    const refresh = await call(t, 'POST', '/v1/users/refresh_jwt', { auth: before, body: {} });
    expect([refresh.status, refresh.body.error_code]).toEqual([403, 'mfa_enrolment_required']);
  });

  it("ends the renewal of a holder's token once its factors are reset (a third review), and a deleted user's factors go with it", async () => {
    const role = await call(t, 'POST', '/v1/roles', {
      auth: root,
      body: { name: 'Operators', management: 'cluster_member', mfa_required: true },
    });
    await call(t, 'PUT', `/v1/users/${ops}`, { auth: root, body: { role_uids: [role.body.uid] } });
    t.advance(2);
    const { secret } = await enrolTotp(await login(t, 'ops', OPS_PASSWORD));
    const both = await loginWithCode(secret);
    expect((await call(t, 'DELETE', `/v1/users/${ops}/mfa`, { auth: root })).status).toBe(200);
    t.advance(2);
    const refresh = await call(t, 'POST', '/v1/users/refresh_jwt', { auth: both, body: {} });
    expect([refresh.status, refresh.body.error_code]).toEqual([403, 'mfa_enrolment_required']);
    const { secret: again } = await enrolTotp(await login(t, 'ops', OPS_PASSWORD));
    expect(again).toBeDefined();
    expect((await call(t, 'DELETE', `/v1/users/${ops}`, { auth: root })).status).toBe(200);
    for (const table of ['mfa_factors', 'mfa_recovery_codes'] as const)
      expect(await t.tessera.db.selectFrom(table).selectAll().where('uid', '=', ops).execute()).toEqual([]);
  });

  it('is off for every role by default, and settable on a built-in role', async () => {
    const roles = (await call(t, 'GET', '/v1/roles', { auth: root })).body as { mfa_required?: boolean }[];
    expect(roles.every((r) => r.mfa_required === undefined)).toBe(true);
    const admin = await call(t, 'PUT', '/v1/roles/1', { auth: root, body: { mfa_required: true } });
    expect([admin.status, admin.body.mfa_required]).toEqual([200, true]);
  });
});

describe.skipIf(!slapdAvailable() && process.env.CI !== 'true')('a directory user', () => {
  it('enrols like a local one, and its next login asks for the second step (SSO and certificate users are not asked)', async () => {
    const dir = await startDirectory(person('alice', 'alice-pw-1') + group('ops', ['alice']));
    try {
      await call(t, 'PUT', '/v1/cluster/ldap', { auth: root, body: directorySettings(dir.url, { cache_ttl: 60 }) });
      await call(t, 'POST', '/v1/ldap_mappings', {
        auth: root,
        body: { name: 'Ops', dn: groupDn('ops'), role_uids: [3] },
      });
      const alice = await login(t, 'alice', 'alice-pw-1');
      const uid = Number(decodeJwt(alice.slice(4)).payload.uid);
      const started = await call(t, 'POST', `/v1/users/${uid}/mfa/totp`, { auth: alice, body: {} });
      const verified = await call(t, 'POST', `/v1/users/${uid}/mfa/totp/verify`, {
        auth: alice,
        body: { code: codeAt(started.body.secret, now()) },
      });
      expect(verified.status).toBe(200);
      t.advance(30);
      const first = await firstStep('alice', 'alice-pw-1');
      expect([first.status, first.body.error_code]).toEqual([401, 'mfa_required']);
      const second = await secondStep({ mfa_token: first.body.mfa_token, code: codeAt(started.body.secret, now()) });
      expect(second.status).toBe(200);
      const basic = await call(t, 'GET', `/v1/users/${uid}`, { auth: t.basic('alice', 'alice-pw-1') });
      expect(basic.body.error_code).toBe('mfa_required');
    } finally {
      await dir.stop();
    }
  });
});

describe("RFC 6238's test vectors (SHA-1), through a real login", () => {
  // The RFC's seed, "12345678901234567890", in base32; its 8-digit codes end in these six.
  const SEED = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
  const VECTORS: [seconds: number, code: string][] = [
    [59, '287082'],
    [1111111109, '081804'],
    [1111111111, '050471'],
    [1234567890, '005924'],
    [2000000000, '279037'],
    [20000000000, '353130'],
  ];

  it('accepts each code at its time', async () => {
    await t.close();
    t = await testTessera({}, { startAt: 59_000 });
    await t.addUser('root', 'root-password', 'admin');
    ops = await t.addUser('ops', OPS_PASSWORD, 'cluster_member');
    await t.tessera.db
      .insertInto('mfa_factors')
      .values({
        id: 'mf_rfc6238vectors00',
        uid: ops,
        type: 'totp',
        name: 'RFC 6238',
        confirmed: 1,
        // No master key in tests: a secret is kept as JSON, as the sealer keeps one without a key.
        secret: JSON.stringify({ secret: SEED }),
        last_step: null,
        credential_id: null,
        public_key: null,
        counter: 0,
        transports: null,
        created_at: new Date(59_000).toISOString(),
        last_used_at: null,
      })
      .execute();
    expect(codeAt(SEED, 59_000)).toBe('287082');
    for (const [seconds, code] of VECTORS) {
      t.advance(seconds - now() / 1000);
      const first = await firstStep();
      expect([seconds, first.body.error_code]).toEqual([seconds, 'mfa_required']);
      const second = await secondStep({ mfa_token: first.body.mfa_token, code });
      expect([seconds, second.status]).toEqual([seconds, 200]);
    }
  });
});
