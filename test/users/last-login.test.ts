import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe("last_login: the last successful authentication with the user's credentials", () => {
  let t: TestTessera;
  let uid: number;
  const writes: number[] = [];

  beforeAll(async () => {
    t = await testTessera();
    await t.addUser('root', 'root-password', 'admin');
    uid = await t.addUser('bot', 'bot-password-1', 'cluster_viewer');
    t.tessera.events.on('loginRecorded', (who: number) => who === uid && writes.push(who));
  });
  afterAll(() => t.close());

  const lastLogin = async () =>
    (await call(t, 'GET', `/v1/users/${uid}`, { auth: basic('root', 'root-password') })).body.last_login as
      | number
      | undefined;
  const settle = () => new Promise((r) => setTimeout(r, 50));

  it('moves on Basic calls as automation makes them, written once a minute however many calls, and not on token calls', async () => {
    expect(await lastLogin()).toBeUndefined();
    for (let i = 0; i < 20; i++)
      expect((await call(t, 'GET', '/v1/users/permissions', { auth: basic('bot', 'bot-password-1') })).status).toBe(
        200,
      );
    await settle();
    expect(writes).toHaveLength(1);
    const first = (await lastLogin())!;
    expect(Math.abs(first - Date.now() / 1000)).toBeLessThan(60);

    t.advance(30);
    const token = await login(t, 'bot', 'bot-password-1'); // a login records as it always did
    await settle();
    expect(writes).toHaveLength(2);
    t.advance(61);
    for (let i = 0; i < 5; i++) await call(t, 'GET', '/v1/users/permissions', { auth: token });
    await settle();
    expect(writes).toHaveLength(2); // a token is not the user's credentials
    await call(t, 'GET', '/v1/users/permissions', { auth: basic('bot', 'bot-password-1') });
    await settle();
    expect(writes).toHaveLength(3);
    expect((await lastLogin())! - first).toBeGreaterThanOrEqual(91);
  });
});
