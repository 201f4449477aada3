import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, login } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
let reader: string;
let root: string;
beforeEach(async () => {
  t = await testTessera();
  await t.addUser('root', 'root-password', 'admin');
  await t.addUser('svc', 'service-password', 'token_verifier');
  await t.addUser('ann', 'ann-password-1', 'cluster_viewer');
  [reader, root] = await Promise.all([login(t, 'svc', 'service-password'), login(t, 'root', 'root-password')]);
});
afterEach(() => t.close());

const feed = (after?: string, auth = reader) =>
  call(t, 'GET', `/v1/revocations${after ? `?after=${after}` : ''}`, { auth });

describe('GET /v1/revocations', () => {
  it('is for the token_verifier role and admins only', async () => {
    expect((await feed()).status).toBe(200);
    expect((await feed(undefined, root)).status).toBe(200);
    const ann = await login(t, 'ann', 'ann-password-1');
    expect((await feed(undefined, ann)).body.error_code).toBe('forbidden');
    expect((await call(t, 'GET', '/v1/revocations')).status).toBe(401);
    expect((await feed('not-a-cursor')).body).toEqual({
      error_code: 'invalid_request',
      message: 'after must be a cursor from an earlier answer',
    });
  });

  it('tells, after a cursor and in order, each token logged out (and its session) and each user whose tokens ended', async () => {
    const start = await feed();
    expect(start.body).toMatchObject({ more: false, events: [] });
    const ann = await login(t, 'ann', 'ann-password-1');
    const { jti: annJti, sid: annSid } = JSON.parse(Buffer.from(ann.split('.')[1]!, 'base64url').toString());
    await call(t, 'POST', '/v1/users/logout', { auth: ann });
    const uid = (await t.tessera.users.findByUsername('ann'))!.uid;
    await call(t, 'PUT', `/v1/users/${uid}`, { auth: root, body: { role: 'db_viewer' } });
    const page = await feed(start.body.cursor);
    const epoch = (await t.tessera.users.getByUid(uid))!.tokenEpoch;
    expect(page.body.events).toEqual([
      { type: 'token', jti: annJti, exp: expect.any(Number) },
      { type: 'session', sid: annSid, exp: expect.any(Number) },
      { type: 'user', uid, ver: epoch },
    ]);
    expect((await feed(page.body.cursor)).body).toEqual({ cursor: page.body.cursor, more: false, events: [] });
    await call(t, 'DELETE', `/v1/users/${uid}`, { auth: root });
    expect((await feed(page.body.cursor)).body.events).toEqual([{ type: 'user', uid, ver: null }]);
    const last = await feed(page.body.cursor);
    t.advance(1);
    await call(t, 'DELETE', '/v1/sessions', { auth: root });
    // The reader's own token ended with every session: it reads with its Basic credentials.
    const events = (await feed(last.body.cursor, t.basic('svc', 'service-password'))).body.events;
    expect(events.length).toBe(2); // root and svc: a user event each, raised epochs
    expect(events.every((e: { type: string }) => e.type === 'user')).toBe(true);
  });
});
