import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, login } from '../helpers/http.js';
import { decodeJwt, type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
let root: string;
let opsUid: number;

/** A login as a client makes it, with its User-Agent (and the console's mark when `console`). */
async function loginAs(
  username: string,
  password: string,
  opts: { agent?: string; console?: boolean; ttl?: number } = {},
): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/users/authorize',
    headers: {
      'user-agent': opts.agent ?? 'curl/8.5.0',
      ...(opts.console && { 'x-requested-with': 'tessera-console' }),
    },
    payload: { username, password, ...(opts.ttl && { ttl: opts.ttl }) },
  });
  expect(res.statusCode, res.body).toBe(200);
  return `JWT ${res.json().access_token}`;
}
const sidOf = (auth: string) => decodeJwt(auth.slice(4)).payload.sid as string;
const refresh = (auth: string, ttl?: number) =>
  call(t, 'POST', '/v1/users/refresh_jwt', { auth, body: ttl ? { ttl } : {} });
const read = (auth: string) => call(t, 'GET', `/v1/users/${opsUid}`, { auth });

beforeEach(async () => {
  t = await testTessera();
  await t.addUser('root', 'root-password', 'admin');
  opsUid = await t.addUser('ops', 'ops-password-1', 'db_viewer');
  await t.addUser('ivan', 'ivan-password-1', 'user_manager');
  await t.addUser('dora', 'dora-password-1', 'db_viewer');
  root = await login(t, 'root', 'root-password');
});
afterEach(() => t.close());

describe('sessions', () => {
  it('starts one a login, lists it with its fields, and every token of it carries its sid', async () => {
    const laptop = await loginAs('ops', 'ops-password-1', { agent: 'Mozilla/5.0 (X11; Linux x86_64)' });
    const script = await loginAs('ops', 'ops-password-1', { agent: 'python-requests/2.31' });
    expect(sidOf(laptop)).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(sidOf(laptop)).not.toBe(sidOf(script));
    const renewed = `JWT ${(await refresh(laptop)).body.access_token}`;
    expect(sidOf(renewed)).toBe(sidOf(laptop));

    const own = await call(t, 'GET', `/v1/users/${opsUid}/sessions`, { auth: laptop });
    expect(own.status).toBe(200);
    expect(own.body).toHaveLength(2);
    const mine = own.body.find((s: { sid: string }) => s.sid === sidOf(laptop));
    expect(mine).toMatchObject({
      uid: opsUid,
      realm: 'local',
      client_ip: '127.0.0.1',
      user_agent: 'Mozilla/5.0 (X11; Linux x86_64)',
      console: false,
      current: true,
    });
    expect(Date.parse(mine.expires) - Date.parse(mine.started)).toBe(720 * 60_000); // 12 hours by default
    expect(own.body.find((s: { sid: string }) => s.sid === sidOf(script))).toMatchObject({
      user_agent: 'python-requests/2.31',
      current: false,
    });
    // Who may see the user sees them; anyone else, not even that there are any.
    expect((await call(t, 'GET', `/v1/users/${opsUid}/sessions`, { auth: root })).body).toHaveLength(2);
    expect(
      (await call(t, 'GET', `/v1/users/${opsUid}/sessions`, { auth: await login(t, 'ivan', 'ivan-password-1') })).body,
    ).toHaveLength(2);
    expect(
      (await call(t, 'GET', `/v1/users/${opsUid}/sessions`, { auth: await login(t, 'dora', 'dora-password-1') }))
        .status,
    ).toBe(403);
  });

  it("ends one session: its tokens are refused and cannot be refreshed, the user's others live", async () => {
    const stolen = await loginAs('ops', 'ops-password-1');
    const kept = await loginAs('ops', 'ops-password-1');
    const ended = await call(t, 'DELETE', `/v1/users/${opsUid}/sessions/${sidOf(stolen)}`, { auth: kept });
    expect([ended.status, ended.body]).toEqual([200, {}]);
    expect((await read(stolen)).status).toBe(401);
    expect((await refresh(stolen)).status).toBe(401);
    expect((await read(kept)).status).toBe(200);
    expect(
      (await call(t, 'GET', `/v1/users/${opsUid}/sessions`, { auth: kept })).body.map((s: { sid: string }) => s.sid),
    ).toEqual([sidOf(kept)]);
    // Once ended, it is not found again; nor is another user's session under this uid.
    expect(
      (await call(t, 'DELETE', `/v1/users/${opsUid}/sessions/${sidOf(stolen)}`, { auth: root })).body.error_code,
    ).toBe('session_not_found');
    expect(
      (await call(t, 'DELETE', `/v1/users/${opsUid}/sessions/${sidOf(root)}`, { auth: root })).body.error_code,
    ).toBe('session_not_found');
    // The introspection endpoint says so too.
    const introspected = await t.app.inject({
      method: 'POST',
      url: '/v1/introspect',
      headers: { authorization: root },
      payload: { token: stolen.slice(4) },
    });
    expect(introspected.json()).toEqual({ active: false });
  });

  it('ends every session of a user without a password change: its Basic credentials go on working', async () => {
    const one = await loginAs('ops', 'ops-password-1');
    const two = await loginAs('ops', 'ops-password-1');
    const manager = await login(t, 'ivan', 'ivan-password-1');
    const ended = await call(t, 'DELETE', `/v1/users/${opsUid}/sessions`, { auth: manager });
    expect([ended.status, ended.body]).toEqual([200, { ended: 2 }]);
    expect((await read(one)).status).toBe(401);
    expect((await read(two)).status).toBe(401);
    expect((await read(t.basic('ops', 'ops-password-1'))).status).toBe(200);
    expect((await call(t, 'GET', `/v1/users/${opsUid}/sessions`, { auth: root })).body).toEqual([]);
    // A user_manager does not end an admin's sessions; a db_viewer no one's but its own.
    expect((await call(t, 'DELETE', '/v1/users/1/sessions', { auth: manager })).status).toBe(403);
    expect(
      (await call(t, 'DELETE', `/v1/users/${opsUid}/sessions`, { auth: await login(t, 'dora', 'dora-password-1') }))
        .status,
    ).toBe(403);
    expect((await read(root)).status).toBe(200);
  });

  it('ends every session of the cluster on the worst day (admins only); each logs in again', async () => {
    const ops = await loginAs('ops', 'ops-password-1');
    expect((await call(t, 'DELETE', '/v1/sessions', { auth: ops })).status).toBe(403);
    const ended = await call(t, 'DELETE', '/v1/sessions', { auth: root });
    expect(ended.status).toBe(200);
    expect(ended.body.ended).toBeGreaterThanOrEqual(2);
    expect((await read(ops)).status).toBe(401);
    expect((await read(root)).status).toBe(401);
    expect((await read(await loginAs('ops', 'ops-password-1'))).status).toBe(200); // at once, in the same second: no clock decides it
  });

  it('bounds a session from its login: refresh_jwt shortens the ttl to what is left, then refuses with session_expired', async () => {
    expect(
      (await call(t, 'PUT', '/v1/cluster', { auth: root, body: { session_max_lifetime_minutes: 10 } })).status,
    ).toBe(200);
    let token = await loginAs('ops', 'ops-password-1', { ttl: 3600 });
    let payload = decodeJwt(token.slice(4)).payload;
    expect((payload.exp as number) - (payload.iat as number)).toBe(3600); // a login's token: exp = iat + ttl, the product's contract
    // A client that refreshes every minute: the session ends 10 minutes after the login all the same.
    for (let minute = 1; minute < 10; minute++) {
      t.advance(60);
      const res = await refresh(token, 300);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      token = `JWT ${res.body.access_token}`;
      payload = decodeJwt(token.slice(4)).payload;
      expect(payload.exp).toBeLessThanOrEqual((payload.iat as number) + Math.min(300, 600 - minute * 60));
    }
    t.advance(60);
    const over = await refresh(token);
    expect([over.status, over.body.error_code]).toEqual([401, 'session_expired']);
    expect(over.body.message).toContain('log in again');
    expect((await loginAs('ops', 'ops-password-1')).length).toBeGreaterThan(0); // a login starts a new one
  });

  it("idles out the console's sessions on the server, not automation's", async () => {
    expect((await call(t, 'PUT', '/v1/cluster', { auth: root, body: { cm_session_timeout_minutes: 2 } })).status).toBe(
      200,
    );
    const page = await loginAs('ops', 'ops-password-1', { console: true, ttl: 3600 });
    const script = await loginAs('ops', 'ops-password-1', { ttl: 3600 });
    expect(decodeJwt(page.slice(4)).payload.cm).toBe(true);
    expect(decodeJwt(script.slice(4)).payload.cm).toBeUndefined();
    // In use: kept.
    for (let i = 0; i < 3; i++) {
      t.advance(90);
      expect((await read(page)).status).toBe(200);
    }
    // A token taken out of the page, not used for longer than the timeout: refused, and its session is over.
    t.advance(121);
    const idle = await read(page);
    expect([idle.status, idle.body.message]).toEqual([401, expect.stringContaining('cm_session_timeout_minutes')]);
    expect((await refresh(page)).status).toBe(401);
    expect((await read(script)).status).toBe(200); // automation's token is not cut by it
    expect(
      (await call(t, 'GET', `/v1/users/${opsUid}/sessions`, { auth: script })).body.map(
        (s: { console: boolean }) => s.console,
      ),
    ).toEqual([false]);
  });

  it('ends the session with a logout', async () => {
    const token = await loginAs('ops', 'ops-password-1');
    expect((await call(t, 'POST', '/v1/users/logout', { auth: token })).status).toBe(200);
    expect((await call(t, 'GET', `/v1/users/${opsUid}/sessions`, { auth: root })).body).toEqual([]);
  });
});
