import { createLocalJWKSet, jwtVerify } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
afterEach(() => t?.close());

async function setup(overrides: Parameters<typeof testTessera>[0] = {}) {
  t = await testTessera(overrides);
  const ids = {
    admin: await t.addUser('root', 'admin-pass', 'admin'),
    manager: await t.addUser('manager', 'manager-pass', 'user_manager'),
    viewer: await t.addUser('viewer', 'viewer-pass', 'cluster_viewer'),
  };
  return ids;
}

async function tokenFor(username: string, password: string, ttl?: number): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/users/authorize',
    headers: { authorization: t.basic(username, password) },
    payload: ttl === undefined ? undefined : JSON.stringify({ ttl }),
  });
  expect(res.statusCode).toBe(200);
  return res.json().access_token;
}

function get(url: string, authorization?: string) {
  return t.app.inject({ method: 'GET', url, headers: authorization ? { authorization } : {} });
}

describe('presenting a token', () => {
  it.each(['JWT', 'Bearer', 'jwt', 'bearer', 'BEARER'])('accepts "%s <token>"', async (scheme) => {
    await setup();
    const token = await tokenFor('root', 'admin-pass');
    const res = await get('/v1/users', `${scheme} ${token}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().map((u: { username: string }) => u.username)).toEqual(['root', 'manager', 'viewer']);
  });

  it('accepts Basic credentials, unless the cluster turned them off (control_plane_basic_authentication)', async () => {
    await setup();
    expect((await get('/v1/users', t.basic('root', 'admin-pass'))).statusCode).toBe(200);
    expect((await get('/v1/users', t.basic('root', 'wrong'))).statusCode).toBe(401);
    const off = await t.app.inject({
      method: 'PUT',
      url: '/v1/cluster',
      headers: { authorization: t.basic('root', 'admin-pass') },
      payload: { control_plane_basic_authentication: false },
    });
    expect(off.json().control_plane_basic_authentication).toBe(false);
    const res = await get('/v1/users', t.basic('root', 'admin-pass'));
    expect(res.statusCode).toBe(401);
    expect(res.json().error_code).toBe('basic_auth_disabled');
    // The login itself still takes them, and its token works everywhere.
    const token = await tokenFor('root', 'admin-pass');
    expect((await get('/v1/users', `JWT ${token}`)).statusCode).toBe(200);
  });

  it('answers 401 without credentials or with a bad token, with a challenge', async () => {
    await setup();
    const none = await get('/v1/users');
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({ error_code: 'missing_credentials', message: expect.any(String) });
    expect(none.headers['www-authenticate']).toContain('Bearer');
    const token = await tokenFor('root', 'admin-pass');
    const tampered = `${token.slice(0, -4)}AAAA`;
    expect((await get('/v1/users', `JWT ${tampered}`)).json().error_code).toBe('invalid_token');
    expect((await get('/v1/users', 'JWT not.a.token')).statusCode).toBe(401);
    expect((await get('/v1/users', 'JWT')).statusCode).toBe(401);
  });

  it('refuses a token once it has expired (ttl 1, 5 s leeway)', async () => {
    await setup();
    const token = await tokenFor('root', 'admin-pass', 1);
    t.advance(5);
    expect((await get('/v1/users', `JWT ${token}`)).statusCode).toBe(200);
    t.advance(2);
    expect((await get('/v1/users', `JWT ${token}`)).json().error_code).toBe('invalid_token');
  });
});

describe('GET /v1/users', () => {
  it('is for admin and user_manager only', async () => {
    await setup();
    expect((await get('/v1/users', `JWT ${await tokenFor('manager', 'manager-pass')}`)).statusCode).toBe(200);
    const res = await get('/v1/users', `JWT ${await tokenFor('viewer', 'viewer-pass')}`);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error_code: 'forbidden', message: expect.any(String) });
  });

  it('returns user objects without any password material', async () => {
    await setup();
    const res = await get('/v1/users', t.basic('root', 'admin-pass'));
    for (const user of res.json()) {
      expect(Object.keys(user).sort()).toEqual(
        [
          ...['uid', 'name', 'email', 'role', 'role_uids', 'auth_method', 'status', 'password_issue_date'],
          ...['email_alerts', 'cluster_email_alerts', 'username'],
          ...(user.last_login === undefined ? [] : ['last_login']),
        ].sort(),
      );
    }
    expect(res.body).not.toMatch(/argon2|hash|admin-pass/);
  });
});

describe('GET /v1/users/{uid}', () => {
  it('lets a user read itself, and admin or user_manager read anyone', async () => {
    const ids = await setup();
    const viewer = `JWT ${await tokenFor('viewer', 'viewer-pass')}`;
    const self = await get(`/v1/users/${ids.viewer}`, viewer);
    expect(self.statusCode).toBe(200);
    expect(self.json()).toMatchObject({
      uid: ids.viewer,
      username: 'viewer',
      role: 'cluster_viewer',
      status: 'active',
    });
    expect(self.json().last_login).toEqual(expect.any(Number));
    expect((await get(`/v1/users/${ids.admin}`, viewer)).statusCode).toBe(403);
    expect((await get(`/v1/users/${ids.viewer}`, `JWT ${await tokenFor('manager', 'manager-pass')}`)).statusCode).toBe(
      200,
    );
  });

  it('shows an email for usernames that are one, and the expired status', async () => {
    await setup();
    const uid = await t.addUser('ops@example.com', 'ops-password');
    await t.tessera.users.expirePassword(uid, new Date(t.tessera.clock()));
    const res = await get(`/v1/users/${uid}`, t.basic('root', 'admin-pass'));
    expect(res.json()).toMatchObject({ email: 'ops@example.com', status: 'password_expired' });
  });

  it('answers 404 for an unknown uid and 400 for one that is not a number', async () => {
    await setup();
    const admin = t.basic('root', 'admin-pass');
    const missing = await get('/v1/users/999', admin);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error_code).toBe('user_not_found');
    expect((await get('/v1/users/abc', admin)).statusCode).toBe(400);
    expect((await get('/v1/users/1e3', admin)).statusCode).toBe(400);
  });
});

describe('GET /.well-known/jwks.json', () => {
  it('publishes public keys that verify issued tokens, and no private part', async () => {
    await setup();
    const res = await get('/.well-known/jwks.json');
    expect(res.statusCode).toBe(200);
    const jwks = res.json();
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: expect.any(String) });
    expect(jwks.keys[0].d).toBeUndefined();
    const token = await tokenFor('viewer', 'viewer-pass');
    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks), {
      algorithms: ['ES256'],
      issuer: 'https://127.0.0.1:9443',
      audience: 'https://127.0.0.1:9443',
    });
    expect(protectedHeader.kid).toBe(jwks.keys[0].kid);
    expect(payload.username).toBe('viewer');
  });

  it('keeps the same key across restarts of the store', async () => {
    await setup();
    const before = (await get('/.well-known/jwks.json')).json();
    const again = await testTessera({ dataDir: t.dataDir });
    try {
      expect((await again.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json()).toEqual(before);
    } finally {
      await again.app.close();
      await again.tessera.close();
    }
  });
});

describe('unknown routes', () => {
  it('answer 404 in the error shape', async () => {
    await setup();
    const res = await get('/v1/nothing');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error_code: 'not_found', message: expect.any(String) });
  });
});
