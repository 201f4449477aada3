import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, login } from '../helpers/http.js';
import { decodeJwt, type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
let root: string;
let uids: Record<string, number>;

/** A login as a client makes it, with its User-Agent. */
async function loginAs(username: string, password: string, agent: string): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/users/authorize',
    headers: { 'user-agent': agent },
    payload: { username, password },
  });
  expect(res.statusCode, res.body).toBe(200);
  return `JWT ${res.json().access_token}`;
}
const sidOf = (auth: string) => decodeJwt(auth.slice(4)).payload.sid as string;
const every = (auth: string | undefined, query = '') => call(t, 'GET', `/v1/sessions${query}`, { auth });

beforeEach(async () => {
  t = await testTessera();
  uids = {
    root: await t.addUser('root', 'root-password', 'admin'),
    ops: await t.addUser('ops@example.com', 'ops-password-1', 'db_viewer'),
    ivan: await t.addUser('ivan', 'ivan-password-1', 'user_manager'),
    dora: await t.addUser('dora', 'dora-password-1', 'db_viewer'),
  };
  root = await loginAs('root', 'root-password', 'tessera-cli/1.0');
});
afterEach(() => t.close());

describe('GET /v1/sessions', () => {
  it("lists every user's live sessions, the latest seen first, with whose they are", async () => {
    t.advance(5);
    const ops = await loginAs('ops@example.com', 'ops-password-1', 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0');
    t.advance(5);
    const ivan = await loginAs('ivan', 'ivan-password-1', 'python-requests/2.31');

    const res = await every(root);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(3);
    // ivan's is the latest seen, then ops's, then root's (at the start).
    expect(res.body.map((s: { sid: string }) => s.sid)).toEqual([sidOf(ivan), sidOf(ops), sidOf(root)]);
    expect(res.body[0]).toMatchObject({
      uid: uids.ivan,
      name: 'ivan',
      email: '',
      realm: 'local',
      client_ip: '127.0.0.1',
      user_agent: 'python-requests/2.31',
      current: false,
    });
    expect(res.body[1]).toMatchObject({ uid: uids.ops, name: '', email: 'ops@example.com' });
    expect(res.body[2]).toMatchObject({ uid: uids.root, name: 'root', current: true, user_agent: 'tessera-cli/1.0' });
    for (const s of res.body) expect(Date.parse(s.last_seen)).toBeGreaterThanOrEqual(Date.parse(s.started));

    // A user_manager sees them too (as it sees every user), and its own is marked as the current one.
    const byIvan = await every(ivan);
    expect(byIvan.status).toBe(200);
    expect(byIvan.body).toHaveLength(3);
    expect(byIvan.body.find((s: { current: boolean }) => s.current).sid).toBe(sidOf(ivan));
  });

  it('leaves out ended sessions and those past their end', async () => {
    const ops = await loginAs('ops@example.com', 'ops-password-1', 'curl/8.5.0');
    const dora = await loginAs('dora', 'dora-password-1', 'curl/8.5.0');
    const ended = await call(t, 'DELETE', `/v1/users/${uids.ops}/sessions/${sidOf(ops)}`, { auth: root });
    expect(ended.status).toBe(200);
    expect((await every(root)).body.map((s: { sid: string }) => s.sid).sort()).toEqual(
      [sidOf(root), sidOf(dora)].sort(),
    );
    expect((await call(t, 'DELETE', `/v1/users/${uids.dora}/sessions`, { auth: root })).status).toBe(200);
    expect((await every(root)).body.map((s: { sid: string }) => s.sid)).toEqual([sidOf(root)]);

    // Twelve hours on (session_max_lifetime_minutes by default), the sessions are over: an admin's Basic credentials read none.
    t.advance(12 * 3600 + 1);
    const res = await every(t.basic('root', 'root-password'));
    expect(res.status).toBe(200);
    expect(res.body.filter((s: { sid: string }) => s.sid === sidOf(root))).toEqual([]);
  });

  it('answers at most `limit` sessions, the latest seen', async () => {
    await loginAs('ops@example.com', 'ops-password-1', 'a/1');
    t.advance(1);
    const dora = await loginAs('dora', 'dora-password-1', 'b/1');
    const res = await every(root, '?limit=1');
    expect(res.status).toBe(200);
    expect(res.body.map((s: { sid: string }) => s.sid)).toEqual([sidOf(dora)]);
    expect((await every(root, '?limit=10000')).body).toHaveLength(3);
  });

  it('is refused without the right to list users (403), without credentials (401), and with a bad limit (400)', async () => {
    const dora = await login(t, 'dora', 'dora-password-1');
    const refused = await every(dora);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error_code: 'forbidden', message: expect.any(String) });

    const anonymous = await every(undefined);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ error_code: expect.any(String), message: expect.any(String) });

    for (const limit of ['0', '10001', '-1', 'ten', '1.5', '']) {
      const bad = await every(root, `?limit=${limit}`);
      expect(bad.status, `limit=${limit}`).toBe(400);
      expect(bad.body).toEqual({ error_code: 'invalid_request', message: expect.any(String) });
    }
    const unknown = await every(root, '?offset=3');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error_code).toBe('invalid_request');
  });
});
