/**
 * What bounds an API key besides its roles — its owner's way in, a key revoked while it acts,
 * its addresses and expiry carried into what it makes, changes and is swapped for, the owner's
 * lockout — each case an attacker's review of issue 36 found open, and each seen failing first.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI_CONTEXT } from '../../src/audit/audit-log.js';
import { SSO_DEFAULTS } from '../../src/sso/sso-config.js';
import { writeSetting } from '../../src/store/settings.js';
import { call, login } from '../helpers/http.js';
import {
  BASE_DN,
  directorySettings,
  group,
  groupDn,
  person,
  slapdAvailable,
  startDirectory,
} from '../helpers/slapd.mjs';
import { decodeJwt, type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
let root: string;
let ops: number;
beforeEach(async () => {
  t = await testTessera();
  await t.addUser('root', 'root-password', 'admin');
  // ops: cluster_member (2) and user_manager (7).
  ops = (await t.tessera.userCreation.create(
    null,
    { username: 'ops', password: 'ops-password-1', role_uids: [2, 7] },
    CLI_CONTEXT,
  ))!.uid;
  root = await login(t, 'root', 'root-password');
});
afterEach(() => t.close());

const bearer = (key: string) => `Bearer ${key}`;
const basicKey = (name: string, key: string) => `Basic ${Buffer.from(`${name}:${key}`).toString('base64')}`;
type Made = { key: string; key_id: string; expires: string; role_uids?: number[]; allowed_cidrs?: string[] };
async function makeKey(on: TestTessera, auth: string, uid: number, body: Record<string, unknown> = {}, ip?: string) {
  const res = await on.app.inject({
    method: 'POST',
    url: `/v1/users/${uid}/api_keys`,
    headers: { authorization: auth },
    payload: { name: 'job', ttl_days: 30, ...body },
    ...(ip && { remoteAddress: ip }),
  });
  return { status: res.statusCode, body: res.json() as Made };
}
const from = (ip: string, method: 'GET' | 'POST' | 'PUT', url: string, auth: string, body?: object) =>
  t.app.inject({ method, url, headers: { authorization: auth }, remoteAddress: ip, ...(body && { payload: body }) });

describe.skipIf(!slapdAvailable() && process.env.CI !== 'true')('a directory user', () => {
  it('gets no key (the directory may stop letting it in; a key would go on): service accounts are for automation', async () => {
    const dir = await startDirectory(person('alice', 'alice-pw-1') + group('ops', ['alice']));
    try {
      await call(t, 'PUT', '/v1/cluster/ldap', { auth: root, body: directorySettings(dir.url, { cache_ttl: 60 }) });
      await call(t, 'POST', '/v1/ldap_mappings', {
        auth: root,
        body: { name: 'Ops', dn: groupDn('ops'), role_uids: [1] },
      });
      const alice = await login(t, 'alice', 'alice-pw-1');
      const uid = Number(decodeJwt(alice.slice(4)).payload.uid);
      const made = await makeKey(t, alice, uid, { ttl_days: 366 });
      expect([made.status, (made.body as unknown as { message: string }).message]).toEqual([
        400,
        expect.stringMatching(/signs in through ldap.*service account/),
      ]);
      const key = made.body.key ?? 'tsr_none';
      await dir.modify(`dn: uid=alice,ou=people,${BASE_DN}\nchangetype: delete\n\n`);
      // Her token's refresh asks the directory again: refused.
      expect((await call(t, 'POST', '/v1/users/refresh_jwt', { auth: alice, body: {} })).status).toBe(401);
      t.advance(3600);
      // Her key: still an admin an hour later (for up to 366 days) — it makes an admin service account.
      const backdoor = await call(t, 'POST', '/v1/users', {
        auth: bearer(key),
        body: { name: 'alice-backdoor', auth_method: 'api_key', role_uids: [1] },
      });
      expect(backdoor.status).not.toBe(200);
    } finally {
      await dir.stop();
    }
  });
});

describe('a key revoked on one node while another still has it', () => {
  it('makes no key there: the acting key is read from the store, and one gone acts no more (Bearer)', async () => {
    const b = await testTessera({ dataDir: t.dataDir });
    try {
      const narrow = (await makeKey(t, root, ops, { role_uids: [2] })).body;
      // Node B read the key (its clock stands: the entry stays within its second).
      expect((await call(b, 'GET', `/v1/users/${ops}`, { auth: bearer(narrow.key) })).status).toBe(200);
      expect((await call(t, 'DELETE', `/v1/users/${ops}/api_keys/${narrow.key_id}`, { auth: root })).status).toBe(200);
      const minted = await makeKey(b, bearer(narrow.key), ops, { name: 'escape', ttl_days: 366 });
      expect([minted.status, (minted.body as unknown as { error_code: string }).error_code]).toEqual([
        403,
        'unauthorized_action',
      ]);
    } finally {
      await b.app.close();
      await b.tessera.close();
    }
  });

  it('the same with a token of the key (claim akid), before that node reads the revocation', async () => {
    const b = await testTessera({ dataDir: t.dataDir });
    try {
      const narrow = (await makeKey(t, root, ops, { role_uids: [2] })).body;
      const token = (await call(t, 'POST', '/v1/users/authorize', { auth: bearer(narrow.key), body: {} })).body
        .access_token;
      expect((await call(b, 'GET', `/v1/users/${ops}`, { auth: `JWT ${token}` })).status).toBe(200);
      await call(t, 'DELETE', `/v1/users/${ops}/api_keys/${narrow.key_id}`, { auth: root });
      const minted = await makeKey(b, `JWT ${token}`, ops, { name: 'escape', ttl_days: 366 });
      expect(minted.status).toBe(403);
    } finally {
      await b.app.close();
      await b.tessera.close();
    }
  });
});

describe("a key's addresses and expiry bind what it makes, what it changes, and its tokens", () => {
  it('a key taken from 10.0.0.0/8 makes no key (none is made with a key)', async () => {
    const fenced = (await makeKey(t, root, ops, { allowed_cidrs: ['10.0.0.0/8'], role_uids: [2] })).body;
    const child = await makeKey(t, bearer(fenced.key), ops, { name: 'child' }, '10.1.1.1');
    expect(child.status).toBe(403); // keys are managed with a login, never with a key
  });

  it('a key taken from 10.0.0.0/8 cannot lift its own allowed_cidrs', async () => {
    const fenced = (await makeKey(t, root, ops, { allowed_cidrs: ['10.0.0.0/8'], role_uids: [2] })).body;
    await from('10.1.1.1', 'PUT', `/v1/users/${ops}/api_keys/${fenced.key_id}`, bearer(fenced.key), {
      allowed_cidrs: null,
    });
    expect((await from('203.0.113.9', 'GET', `/v1/users/${ops}`, bearer(fenced.key))).statusCode).toBe(401);
  });

  it('a token got with a key taken from 10.0.0.0/8 is taken from there only', async () => {
    const fenced = (await makeKey(t, root, ops, { allowed_cidrs: ['10.0.0.0/8'], role_uids: [2] })).body;
    const token = (await from('10.1.1.1', 'POST', '/v1/users/authorize', bearer(fenced.key), {})).json().access_token;
    expect((await from('203.0.113.9', 'GET', `/v1/users/${ops}`, `JWT ${token}`)).statusCode).toBe(401);
  });

  it('a key expiring tomorrow makes no key, and does not extend itself', async () => {
    const short = (await makeKey(t, root, ops, { ttl_days: 1, role_uids: [2] })).body;
    const child = await makeKey(t, bearer(short.key), ops, { name: 'long', ttl_days: 366 });
    expect(child.status).toBe(403);
    const later = new Date(Date.now() + 365 * 86_400_000).toISOString();
    const ext = await call(t, 'PUT', `/v1/users/${ops}/api_keys/${short.key_id}`, {
      auth: bearer(short.key),
      body: { expires_at: later },
    });
    expect(ext.status).not.toBe(200);
  });

  it('shortening a key (PUT expires_at) ends its tokens, and a token of an expired key makes no key', async () => {
    const made = (await makeKey(t, root, ops, { role_uids: [2, 7] })).body;
    const token = `JWT ${(await call(t, 'POST', '/v1/users/authorize', { auth: bearer(made.key), body: { ttl: 36_000 } })).body.access_token}`;
    await call(t, 'PUT', `/v1/users/${ops}/api_keys/${made.key_id}`, {
      auth: root,
      body: { expires_at: new Date(Date.now() + 60_000).toISOString() },
    });
    expect((await call(t, 'GET', '/v1/users', { auth: token })).status).toBe(401); // its tokens ended with the change
    t.advance(120);
    expect((await call(t, 'GET', '/v1/users', { auth: bearer(made.key) })).body.error_code).toBe('api_key_expired');
    const fresh = await makeKey(t, token, ops, { name: 'after expiry', ttl_days: 366 });
    expect(fresh.status).toBe(401); // its token ended with the change
  });
});

describe("the owner's lockout, which anyone guessing its password causes", () => {
  it('does not stop its keys (jobs go on while strangers guess from 5 addresses)', async () => {
    const key = (await makeKey(t, root, ops)).body.key;
    for (let i = 0; i < 5; i++)
      await t.app.inject({
        method: 'POST',
        url: '/v1/users/authorize',
        payload: { username: 'ops', password: `wrong-${i}` },
        remoteAddress: `198.51.100.${i + 1}`,
      });
    t.advance(1.1);
    expect((await call(t, 'GET', `/v1/users/${ops}`, { auth: bearer(key) })).status).toBe(200);
  });

  it('is not caused by a key sent in Basic with a trailing newline (read from a file): it is the key', async () => {
    const key = (await makeKey(t, root, ops)).body.key;
    for (let i = 0; i < 5; i++)
      expect((await call(t, 'GET', `/v1/users/${ops}`, { auth: basicKey('ops', `${key}\n`) })).status).toBe(200);
    t.advance(1.1);
    expect(
      (await call(t, 'POST', '/v1/users/authorize', { body: { username: 'ops', password: 'ops-password-1' } })).status,
    ).toBe(200);
  });
});

describe('keys of a local user who is not an admin, while the cluster enforces SSO', () => {
  it("stop with the owner's password (sso_required): the identity provider decides who gets in", async () => {
    const key = (await makeKey(t, root, ops, { role_uids: [2, 7] })).body.key;
    await writeSetting(t.tessera.db, 'sso', { ...SSO_DEFAULTS, control_plane: true, enforce_control_plane: true });
    t.advance(2);
    const pw = await call(t, 'POST', '/v1/users/authorize', { body: { username: 'ops', password: 'ops-password-1' } });
    expect(pw.body.error_code).toBe('sso_required');
    const used = await call(t, 'GET', '/v1/users', { auth: bearer(key) });
    const tok = await call(t, 'POST', '/v1/users/authorize', { auth: bearer(key), body: {} });
    expect([used.status, used.body.error_code, tok.status]).toEqual([401, 'sso_required', 401]);
  });
});

describe('the OpenAPI document of POST /v1/users/authorize', () => {
  it('lists the key refusals: invalid_api_key, api_key_expired and api_key_address_refused', async () => {
    const doc = (await call(t, 'GET', '/v1/openapi.json')).body;
    const text = JSON.stringify(doc.paths['/v1/users/authorize'].post.responses);
    for (const code of ['invalid_api_key', 'api_key_expired', 'api_key_address_refused']) expect(text).toContain(code);
  });
});

describe('a user_manager key', () => {
  it('makes no key for another user: keys are managed with a login', async () => {
    const viewer = await t.addUser('viewer', 'viewer-password-1', 'cluster_viewer');
    const manager = (await makeKey(t, root, ops, { role_uids: [7] })).body;
    const forViewer = await makeKey(t, bearer(manager.key), viewer, { name: 'v' });
    expect(forViewer.status).toBe(403);
  });
});

describe('a key for another user (the fifth and sixth reviews)', () => {
  it("is an admin's to make: a user_manager's would grow with the owner's promotion or a redefinition of its role", async () => {
    const bob = await t.addUser('bob', 'bob-password-1', 'cluster_viewer');
    const made = await makeKey(t, await login(t, 'ops', 'ops-password-1'), bob);
    expect([made.status, (made.body as unknown as { error_code: string }).error_code]).toEqual([
      403,
      'unauthorized_action',
    ]);
  });

  it("made by an admin, acts with the roles the owner held then: the owner's promotion does not widen it", async () => {
    const bob = await t.addUser('bob', 'bob-password-1', 'cluster_viewer');
    const made = await makeKey(t, root, bob);
    expect([made.status, made.body.role_uids]).toEqual([200, [3]]);
    expect((await call(t, 'PUT', `/v1/users/${bob}`, { auth: root, body: { role_uids: [1] } })).status).toBe(200);
    t.advance(2);
    // The key's roles ([3]) that bob holds now ([1]): none.
    const token = await call(t, 'POST', '/v1/users/authorize', { auth: bearer(made.body.key), body: {} });
    expect(decodeJwt(token.body.access_token).payload.roles).toEqual(['none']);
  });

  it('a key of its own follows its roles (none asked: every role it holds now)', async () => {
    const own = await makeKey(t, await login(t, 'ops', 'ops-password-1'), ops);
    expect([own.status, own.body.role_uids]).toEqual([200, undefined]);
  });
});

describe('a key pasted as the user-id with a stray character', () => {
  it('is never written in full to the event log (a zero-width space after it, quotes around it)', async () => {
    const { key } = (await makeKey(t, await login(t, 'ops', 'ops-password-1'), ops)).body;
    const zwsp = await call(t, 'GET', `/v1/users/${ops}`, { auth: basicKey(`${key}\u200b`, 'x') });
    const quoted = await call(t, 'POST', '/v1/users/authorize', { body: { username: `"${key}"`, password: 'x' } });
    expect([zwsp.status, quoted.status]).toEqual([401, 401]);
    const logs = await call(t, 'GET', '/v1/logs', { auth: root });
    expect(JSON.stringify(logs.body)).toContain('tsr_…');
    expect(JSON.stringify(logs.body)).not.toContain(key.slice(4, 20));
  });
});

describe('ids a path cannot hold', () => {
  it('answer 400, never a 500 (a NUL in a key_id or a session id, a uid past the integer column)', async () => {
    for (const [method, url] of [
      ['GET', `/v1/users/${ops}/api_keys/key_%00abc`],
      ['DELETE', `/v1/users/${ops}/sessions/abc%00`],
      ['GET', '/v1/users/99999999999'],
      ['GET', '/v1/users/2147483648'],
    ] as const)
      expect([url, (await call(t, method, url, { auth: root })).status]).toEqual([url, 400]);
    expect((await call(t, 'GET', '/v1/users/2147483647', { auth: root })).status).toBe(404);
  });
});
