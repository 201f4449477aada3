import { afterEach, describe, expect, it } from 'vitest';
import { decodeJwt, type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
let uid: number;
afterEach(() => t?.close());

async function setup() {
  t = await testTessera();
  uid = await t.addUser('carol', 'carol-password', 'db_member');
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/users/authorize',
    headers: { authorization: t.basic('carol', 'carol-password') },
  });
  return res.json().access_token as string;
}

function refresh(authorization: string | undefined, payload?: string) {
  return t.app.inject({
    method: 'POST',
    url: '/v1/users/refresh_jwt',
    headers: authorization ? { authorization } : {},
    payload,
  });
}

describe('POST /v1/users/refresh_jwt', () => {
  it('exchanges a valid token for a new one, with an optional ttl', async () => {
    const token = await setup();
    t.advance(10);
    const res = await refresh(`Bearer ${token}`, '{"ttl":900}');
    expect(res.statusCode).toBe(200);
    const old = decodeJwt(token).payload;
    const renewed = decodeJwt(res.json().access_token).payload;
    expect(renewed).toMatchObject({ sub: String(uid), username: 'carol', roles: ['db_member'] });
    expect(renewed.jti).not.toBe(old.jti);
    expect((renewed.exp as number) - (renewed.iat as number)).toBe(900);
    expect(renewed.iat).toBe((old.iat as number) + 10);
  });

  it('answers 401 for a missing, invalid or expired token', async () => {
    const token = await setup();
    expect((await refresh(undefined)).json().error_code).toBe('missing_credentials');
    expect((await refresh(t.basic('carol', 'carol-password'))).statusCode).toBe(400); // a password renews no token
    expect((await refresh('JWT garbage')).json().error_code).toBe('invalid_token');
    t.advance(300 + 6);
    expect((await refresh(`JWT ${token}`)).json().error_code).toBe('invalid_token');
  });

  it('answers 401 when the user can no longer log in', async () => {
    const token = await setup();
    await t.tessera.users.expirePassword(uid, new Date(t.tessera.clock()));
    expect((await refresh(`JWT ${token}`)).json().error_code).toBe('password_expired');
    await t.tessera.users.delete(uid);
    const res = await refresh(`JWT ${token}`);
    expect(res.statusCode).toBe(401);
    expect(res.json().error_code).toBe('invalid_token');
  });

  it('validates ttl like authorize', async () => {
    const token = await setup();
    expect((await refresh(`JWT ${token}`, '{"ttl":0}')).statusCode).toBe(400);
    expect((await refresh(`JWT ${token}`, '{"ttl":"60"}')).statusCode).toBe(400);
  });
});
