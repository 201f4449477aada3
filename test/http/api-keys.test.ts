import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isKeyShaped, newKey } from '../../src/api-keys/key-format.js';
import { CLI_CONTEXT } from '../../src/audit/audit-log.js';
import { LOCKED_UNTIL_UNLOCKED } from '../../src/users/user.js';
import { call, login } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
let lines: string[];
let root: string;
let ops: number;
beforeEach(async () => {
  lines = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  t = await testTessera({}, { logger: pino({ level: 'debug' }, sink) });
  await t.addUser('root', 'root-password', 'admin');
  // ops: an operator with two roles (cluster_member, user_manager) — a key may act with one of them.
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
async function makeKey(auth: string, uid: number, body: Record<string, unknown> = {}) {
  const res = await call(t, 'POST', `/v1/users/${uid}/api_keys`, {
    auth,
    body: { name: 'job', ttl_days: 30, ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { key: string; key_id: string; prefix: string; expires: string; role_uids?: number[] };
}

describe('API keys', () => {
  it('are made once (the key answered then only, tsr_ with a checksum), listed without it, and stored as a SHA-256', async () => {
    const own = await login(t, 'ops', 'ops-password-1');
    const made = await makeKey(own, ops, { name: 'nightly backup' });
    expect(made).toMatchObject({
      uid: ops,
      name: 'nightly backup',
      prefix: made.key.slice(0, 12),
      created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
    expect(made.key).toMatch(/^tsr_[0-9A-Za-z]{49}$/);
    expect(isKeyShaped(made.key)).toBe(true);
    expect(isKeyShaped(`${made.key.slice(0, -1)}${made.key.endsWith('A') ? 'B' : 'A'}`)).toBe(false);
    expect(new Date(made.expires).getTime() - Date.now()).toBeGreaterThan(29 * 86_400_000);

    const listed = await call(t, 'GET', `/v1/users/${ops}/api_keys`, { auth: own });
    expect(listed.body).toHaveLength(1);
    expect(listed.body[0]).not.toHaveProperty('key');
    expect(JSON.stringify(listed.body)).not.toContain(made.key.slice(12));
    const one = await call(t, 'GET', `/v1/users/${ops}/api_keys/${made.key_id}`, { auth: own });
    expect(one.body.key_id).toBe(made.key_id);
    const rows = await t.tessera.db.selectFrom('api_keys').selectAll().execute();
    expect(rows[0]!.hash).toBe(createHash('sha256').update(made.key).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(made.key.slice(12));
  });

  it('work as Bearer, as the password of their owner in Basic, and at authorize in both wire formats, with the rights of the key', async () => {
    const made = await makeKey(root, ops, { role_uids: [2] }); // cluster_member only, not user_manager
    for (const auth of [bearer(made.key), basicKey('ops', made.key)]) {
      const me = await call(t, 'GET', `/v1/users/${ops}`, { auth });
      expect(me.status, auth.slice(0, 6)).toBe(200);
      // user_manager is not the key's: creating users is 403.
      const create = await call(t, 'POST', '/v1/users', {
        auth,
        body: { name: 'x', email: 'x@example.com', password: 'x-password-123', role_uids: [5] },
      });
      expect(create.status).toBe(403);
    }
    const viaBody = await call(t, 'POST', '/v1/users/authorize', { body: { username: 'ops', password: made.key } });
    const viaBasic = await call(t, 'POST', '/v1/users/authorize', { auth: basicKey('ops', made.key), body: {} });
    const viaBearer = await call(t, 'POST', '/v1/users/authorize', { auth: bearer(made.key), body: {} });
    for (const res of [viaBody, viaBasic, viaBearer]) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const claims = JSON.parse(Buffer.from(res.body.access_token.split('.')[1], 'base64url').toString());
      expect(claims).toMatchObject({ uid: ops, roles: ['cluster_member'], akid: made.key_id });
    }
    // A key's token is not renewed (it would come back with every right of the owner).
    const refresh = await call(t, 'POST', '/v1/users/refresh_jwt', { auth: `JWT ${viaBody.body.access_token}` });
    expect([refresh.status, refresh.body.error_code]).toEqual([400, 'invalid_request']);
    expect(refresh.body.message).toMatch(/log in with the key again/);
  });

  it('keep working as Bearer when Basic is off; in Basic credentials they are Basic', async () => {
    const made = await makeKey(root, ops);
    await t.tessera.policy.update({ control_plane_basic_authentication: false });
    expect((await call(t, 'GET', `/v1/users/${ops}`, { auth: bearer(made.key) })).status).toBe(200);
    const basic = await call(t, 'GET', `/v1/users/${ops}`, { auth: basicKey('ops', made.key) });
    expect([basic.status, basic.body.error_code]).toEqual([401, 'basic_auth_disabled']);
  });

  it('narrow to what the owner holds now: a demoted owner shrinks its keys, a locked one stops them, a deleted one ends them', async () => {
    const made = await makeKey(root, ops); // every role of ops
    const auth = bearer(made.key);
    expect((await call(t, 'GET', '/v1/users', { auth })).status).toBe(200); // user_manager: view_all_users_info
    await call(t, 'PUT', `/v1/users/${ops}`, { auth: root, body: { role_uids: [2] } });
    t.advance(1.1); // the key's owner is read again within a second
    expect((await call(t, 'GET', '/v1/users', { auth })).status).toBe(403); // no longer a user_manager
    expect((await call(t, 'GET', '/v1/cluster', { auth })).status).toBe(200); // still a cluster_member
    // A timed lockout guards the password (anyone guessing causes one): the key goes on. A lock until an admin unlocks stops it.
    await t.tessera.users.lock(ops, new Date(Date.now() + 3_600_000), new Date());
    t.advance(1.1);
    expect((await call(t, 'GET', `/v1/users/${ops}`, { auth })).status).toBe(200);
    await t.tessera.users.unlock(ops, new Date());
    await t.tessera.users.lock(ops, LOCKED_UNTIL_UNLOCKED, new Date());
    t.advance(1.1);
    const locked = await call(t, 'GET', `/v1/users/${ops}`, { auth });
    expect([locked.status, locked.body.error_code]).toEqual([401, 'account_locked']);
    await call(t, 'POST', `/v1/users/${ops}/unlock`, { auth: root });
    await call(t, 'DELETE', `/v1/users/${ops}`, { auth: root });
    t.advance(1.1);
    const gone = await call(t, 'GET', `/v1/users/${ops}`, { auth });
    expect([gone.status, gone.body.error_code]).toEqual([401, 'invalid_api_key']);
    expect(await t.tessera.db.selectFrom('api_keys').selectAll().execute()).toEqual([]);
  });

  it("refuse each wrong case with its own code, never counting toward the owner's lockout", async () => {
    const made = await makeKey(root, ops, { allowed_cidrs: ['10.0.0.0/8'] });
    // From 127.0.0.1: not a range of the key.
    const outside = await call(t, 'GET', `/v1/users/${ops}`, { auth: bearer(made.key) });
    expect([outside.status, outside.body.error_code]).toEqual([401, 'api_key_address_refused']);
    const inside = await t.app.inject({
      method: 'GET',
      url: `/v1/users/${ops}`,
      headers: { authorization: bearer(made.key) },
      remoteAddress: '10.1.2.3',
    });
    expect(inside.statusCode).toBe(200);
    // A key of the right shape that is no key here; the right key named with another user.
    const other = (await makeKey(root, ops)).key;
    const forged = newKey(); // a key's shape and checksum, and no key here
    const wrong = await call(t, 'GET', `/v1/users/${ops}`, { auth: bearer(forged) });
    expect([wrong.status, wrong.body.error_code]).toEqual([401, 'invalid_api_key']);
    // As Bearer, whatever starts with tsr_ is a key (no token does): a wrong checksum is a wrong key.
    const noise = `${other.slice(0, -1)}${other.endsWith('A') ? 'B' : 'A'}`;
    expect((await call(t, 'GET', `/v1/users/${ops}`, { auth: bearer(noise) })).body.error_code).toBe('invalid_api_key');
    // In Basic, a key's length and prefix is a key attempt (a mistyped key is no guess at the password); a shorter one is a password.
    expect((await call(t, 'GET', `/v1/users/${ops}`, { auth: basicKey('ops', noise) })).body.error_code).toBe(
      'invalid_api_key',
    );
    const asPassword = await call(t, 'GET', `/v1/users/${ops}`, { auth: basicKey('ops', 'tsr_not-a-key') });
    expect(asPassword.body.error_code).toBe('invalid_credentials');
    for (let i = 0; i < 6; i++) {
      const named = await call(t, 'GET', `/v1/users/${ops}`, { auth: basicKey('root', other) });
      expect([named.status, named.body.error_code]).toEqual([401, 'invalid_api_key']);
    }
    expect((await login(t, 'root', 'root-password')).startsWith('JWT ')).toBe(true); // root not locked
    t.advance(31 * 86_400);
    const expired = await call(t, 'GET', `/v1/users/${ops}`, { auth: bearer(other) });
    expect([expired.status, expired.body.error_code]).toEqual([401, 'api_key_expired']);
  });

  it('are revoked: refused at once, and the tokens issued for them end', async () => {
    const made = await makeKey(root, ops);
    const token = (await call(t, 'POST', '/v1/users/authorize', { auth: bearer(made.key), body: {} })).body
      .access_token;
    expect((await call(t, 'GET', `/v1/users/${ops}`, { auth: `JWT ${token}` })).status).toBe(200);
    expect((await call(t, 'DELETE', `/v1/users/${ops}/api_keys/${made.key_id}`, { auth: root })).status).toBe(200);
    expect((await call(t, 'GET', `/v1/users/${ops}`, { auth: bearer(made.key) })).body.error_code).toBe(
      'invalid_api_key',
    );
    expect((await call(t, 'GET', `/v1/users/${ops}`, { auth: `JWT ${token}` })).status).toBe(401);
    expect((await call(t, 'GET', `/v1/users/${ops}/api_keys/${made.key_id}`, { auth: root })).status).toBe(404);
  });

  it('are changed (name, expiry within the policy, addresses) but never widened, and never with a key', async () => {
    const made = await makeKey(root, ops, { role_uids: [2] });
    const changed = await call(t, 'PUT', `/v1/users/${ops}/api_keys/${made.key_id}`, {
      auth: root,
      body: { name: 'renamed', allowed_cidrs: ['127.0.0.1'] },
    });
    expect(changed.body).toMatchObject({ name: 'renamed', allowed_cidrs: ['127.0.0.1'], role_uids: [2] });
    const far = await call(t, 'PUT', `/v1/users/${ops}/api_keys/${made.key_id}`, {
      auth: root,
      body: { expires_at: '2099-01-01T00:00:00Z' },
    });
    expect([far.status, far.body.message]).toEqual([400, expect.stringMatching(/at most 366 days/)]);
    const widen = await call(t, 'PUT', `/v1/users/${ops}/api_keys/${made.key_id}`, {
      auth: root,
      body: { role_uids: [2, 7] },
    });
    expect(widen.status).toBe(400);
    // Keys are managed with a login, never with a key: a leaked key makes, frees and widens none.
    for (const [method, url, body] of [
      ['POST', `/v1/users/${ops}/api_keys`, { name: 'child', ttl_days: 1 }],
      ['PUT', `/v1/users/${ops}/api_keys/${made.key_id}`, { allowed_cidrs: null }],
      ['DELETE', `/v1/users/${ops}/api_keys/${made.key_id}`, undefined],
    ] as const) {
      const byKey = await call(t, method, url, { auth: bearer(made.key), body });
      expect([byKey.status, byKey.body.error_code], method).toEqual([403, 'unauthorized_action']);
    }
    // Not a role of the owner at all.
    const foreign = await call(t, 'POST', `/v1/users/${ops}/api_keys`, {
      auth: root,
      body: { name: 'admin', ttl_days: 1, role_uids: [1] },
    });
    expect(foreign.status).toBe(403);
  });

  it('need an expiry within api_key_max_lifetime_days, and a user has at most 20', async () => {
    for (const body of [
      { name: 'x' },
      { name: 'x', ttl_days: 367 },
      { name: 'x', expires_at: 'tomorrow' },
      { name: 'x', ttl_days: 1, expires_at: '2027-01-01' },
    ]) {
      const res = await call(t, 'POST', `/v1/users/${ops}/api_keys`, { auth: root, body });
      expect([res.status, res.body.error_code], JSON.stringify(body)).toEqual([400, 'invalid_request']);
    }
    await call(t, 'PUT', '/v1/cluster', { auth: root, body: { api_key_max_lifetime_days: 400 } });
    await makeKey(root, ops, { ttl_days: 367 });
    for (let i = 1; i < 20; i++) await makeKey(root, ops, { name: `k${i}` });
    const over = await call(t, 'POST', `/v1/users/${ops}/api_keys`, { auth: root, body: { name: 'k20', ttl_days: 1 } });
    expect([over.status, over.body.error_code]).toEqual([409, 'too_many_api_keys']);
  });

  it("are the user's own, or of who may manage it: a user_manager never touches an admin's", async () => {
    await t.addUser('viewer', 'viewer-password-1', 'cluster_viewer');
    const manager = await login(t, 'ops', 'ops-password-1');
    const viewer = await login(t, 'viewer', 'viewer-password-1');
    const rootUid = 1;
    expect(
      (await call(t, 'POST', `/v1/users/${rootUid}/api_keys`, { auth: manager, body: { name: 'x', ttl_days: 1 } }))
        .status,
    ).toBe(403);
    expect(
      (await call(t, 'POST', `/v1/users/${ops}/api_keys`, { auth: viewer, body: { name: 'x', ttl_days: 1 } })).status,
    ).toBe(403);
    // A key for another user is an admin's to make (a way to act as that user); a user_manager lists and revokes them.
    const byManager = await call(t, 'POST', '/v1/users/3/api_keys', {
      auth: manager,
      body: { name: 'x', ttl_days: 1 },
    });
    expect([byManager.status, byManager.body.error_code]).toEqual([403, 'unauthorized_action']);
    const forViewer = await makeKey(root, 3);
    const other = await makeKey(root, 3);
    expect((await call(t, 'GET', '/v1/users/3/api_keys', { auth: viewer })).body).toHaveLength(2);
    expect((await call(t, 'GET', '/v1/users/3/api_keys', { auth: manager })).body).toHaveLength(2);
    expect((await call(t, 'DELETE', `/v1/users/3/api_keys/${forViewer.key_id}`, { auth: viewer })).status).toBe(200);
    expect((await call(t, 'DELETE', `/v1/users/3/api_keys/${other.key_id}`, { auth: manager })).status).toBe(200);
  });

  it('never puts a key in a log line, an event, or an error', async () => {
    const made = await makeKey(root, ops);
    await call(t, 'GET', `/v1/users/${ops}`, { auth: bearer(made.key) });
    await call(t, 'GET', `/v1/users/${ops}`, { auth: basicKey('root', made.key) });
    await call(t, 'DELETE', `/v1/users/${ops}/api_keys/${made.key_id}`, { auth: root });
    const refused = await call(t, 'GET', `/v1/users/${ops}`, { auth: bearer(made.key) });
    expect(JSON.stringify(refused.body)).not.toContain(made.key);
    await t.tessera.eventWriter.flush();
    const events = await call(t, 'GET', '/v1/logs', { auth: root });
    const secret = made.key.slice(12);
    expect(JSON.stringify(events.body)).not.toContain(secret);
    expect(lines.join('')).not.toContain(secret);
    expect(events.body.map((e: { type: string }) => e.type)).toEqual(
      expect.arrayContaining(['api_key_create', 'api_key_revoke']),
    );
  });

  it('are the only way in of a service account (auth_method "api_key"): no password, an ordinary user otherwise', async () => {
    const withPassword = await call(t, 'POST', '/v1/users', {
      auth: root,
      body: { name: 'backup-bot', auth_method: 'api_key', password: 'some-password-1', role_uids: [3] },
    });
    expect([withPassword.status, withPassword.body.error_code]).toEqual([400, 'invalid_request']);
    const made = await call(t, 'POST', '/v1/users', {
      auth: root,
      body: { name: 'backup-bot', auth_method: 'api_key', role_uids: [3] },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body).toMatchObject({ name: 'backup-bot', auth_method: 'api_key', role: 'cluster_viewer' });
    const bot = made.body.uid as number;
    const key = await makeKey(root, bot);
    expect((await call(t, 'GET', '/v1/cluster', { auth: bearer(key.key) })).status).toBe(200);
    expect((await call(t, 'GET', '/v1/cluster', { auth: basicKey('backup-bot', key.key) })).status).toBe(200);
    // No password logs it in, and none can be set.
    const guess = await call(t, 'POST', '/v1/users/authorize', {
      body: { username: 'backup-bot', password: 'x-password-1' },
    });
    expect([guess.status, guess.body.error_code]).toEqual([401, 'invalid_credentials']);
    const set = await call(t, 'POST', '/v1/users/password', {
      auth: root,
      body: { username: 'backup-bot', new_password: 'new-password-123' },
    });
    expect([set.status, set.body.message]).toEqual([400, expect.stringMatching(/service account/)]);
    const token = await call(t, 'POST', '/v1/users/authorize', { auth: bearer(key.key), body: {} });
    expect(token.status).toBe(200);
  });

  it('work as the user-id of Basic credentials with any password (curl -u "$KEY:"), never recorded as a name', async () => {
    const made = await makeKey(root, ops);
    for (const auth of [basicKey(made.key, ''), basicKey(made.key, 'x')]) {
      expect((await call(t, 'GET', `/v1/users/${ops}`, { auth })).status).toBe(200);
      expect((await call(t, 'POST', '/v1/users/authorize', { auth, body: {} })).status).toBe(200);
    }
    expect((await call(t, 'POST', '/v1/users/authorize', { body: { username: made.key, password: 'x' } })).status).toBe(
      200,
    );
    // Revoked, it is refused — and the refusals name no key.
    await call(t, 'DELETE', `/v1/users/${ops}/api_keys/${made.key_id}`, { auth: root });
    const refused = await call(t, 'POST', '/v1/users/authorize', { auth: basicKey(made.key, ''), body: {} });
    expect([refused.status, refused.body.error_code]).toEqual([401, 'invalid_api_key']);
    await call(t, 'POST', '/v1/users/authorize', { body: { username: made.key, password: 'x' } });
    await t.tessera.eventWriter.flush();
    const secret = made.key.slice(12);
    expect(JSON.stringify((await call(t, 'GET', '/v1/logs', { auth: root })).body)).not.toContain(secret);
    expect(lines.join('')).not.toContain(secret);
  });

  it('tell when they were last used, written at most once a minute', async () => {
    const made = await makeKey(root, ops);
    expect((await call(t, 'GET', `/v1/users/${ops}/api_keys/${made.key_id}`, { auth: root })).body).not.toHaveProperty(
      'last_used',
    );
    for (let i = 0; i < 5; i++) await call(t, 'GET', `/v1/users/${ops}`, { auth: bearer(made.key) });
    await new Promise((r) => setTimeout(r, 50));
    const used = (await call(t, 'GET', `/v1/users/${ops}/api_keys/${made.key_id}`, { auth: root })).body.last_used;
    expect(used).toMatch(/^\d{4}-/);
  });
});
