import { afterEach, describe, expect, it, vi } from 'vitest';
import { decodeJwt, type TestTessera, testTessera } from '../helpers/test-tessera.js';

const URL = '/v1/users/authorize';
let t: TestTessera;
afterEach(() => t?.close());

async function withAlice(overrides: Parameters<typeof testTessera>[0] = {}) {
  t = await testTessera(overrides);
  await t.addUser('alice@example.com', 'correct horse', 'cluster_member');
  return t;
}

function post(payload?: string, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'POST', url: URL, payload, headers });
}

function expectError(res: { statusCode: number; json(): unknown }, status: number, code: string) {
  expect(res.statusCode).toBe(status);
  const body = res.json() as Record<string, unknown>;
  expect(body).toEqual({ error_code: code, message: expect.any(String) });
}

describe('Variant A (7.22): Basic header, optional {"ttl"}', () => {
  it('issues a token with the default ttl of 300 s when there is no body', async () => {
    await withAlice();
    const res = await post(undefined, { authorization: t.basic('alice@example.com', 'correct horse') });
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json())).toEqual(['access_token']);
    expect(res.headers['cache-control']).toBe('no-store');
    const { header, payload } = decodeJwt(res.json().access_token);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'JWT', kid: expect.any(String) });
    expect(payload).toMatchObject({
      iss: 'https://127.0.0.1:9443', // the public URL: here the listen address of the test config
      aud: 'https://127.0.0.1:9443',
      sub: '1',
      uid: 1,
      username: 'alice@example.com',
      roles: ['cluster_member'],
      jti: expect.any(String),
    });
    expect((payload.exp as number) - (payload.iat as number)).toBe(300);
  });

  it.each([1, 600, 86400])('honours ttl %i', async (ttl) => {
    await withAlice();
    const res = await post(JSON.stringify({ ttl }), { authorization: t.basic('alice@example.com', 'correct horse') });
    expect(res.statusCode).toBe(200);
    const { payload } = decodeJwt(res.json().access_token);
    expect((payload.exp as number) - (payload.iat as number)).toBe(ttl);
  });

  it.each([
    ['zero', '{"ttl":0}'],
    ['above the maximum', '{"ttl":86401}'],
    ['negative', '{"ttl":-5}'],
    ['a string', '{"ttl":"600"}'],
    ['a float', '{"ttl":1.5}'],
    ['null', '{"ttl":null}'],
    ['a boolean', '{"ttl":true}'],
    ['an array body', '[600]'],
    ['a string body', '"600"'],
    ['a null body', 'null'],
  ])('rejects a ttl that is %s with 400', async (_what, body) => {
    await withAlice();
    expectError(
      await post(body, { authorization: t.basic('alice@example.com', 'correct horse') }),
      400,
      'invalid_request',
    );
  });

  it('reads the body as JSON whatever the Content-Type says, and ignores unknown fields', async () => {
    await withAlice();
    const res = await post('{"ttl":42,"extra":true}', {
      authorization: t.basic('alice@example.com', 'correct horse'),
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(res.statusCode).toBe(200);
    const { payload } = decodeJwt(res.json().access_token);
    expect((payload.exp as number) - (payload.iat as number)).toBe(42);
  });

  it('treats an empty body as no body', async () => {
    await withAlice();
    const res = await post('', {
      authorization: t.basic('alice@example.com', 'correct horse'),
      'content-type': 'application/json',
    });
    expect(res.statusCode).toBe(200);
  });

  it('accepts passwords with colons and any Unicode, compared exactly', async () => {
    t = await testTessera();
    const password = ' pä:ss:wörd 🔑 ';
    await t.addUser('emile', password);
    expect((await post(undefined, { authorization: t.basic('emile', password) })).statusCode).toBe(200);
    expectError(
      await post(undefined, { authorization: t.basic('emile', password.trim()) }),
      401,
      'invalid_credentials',
    );
    expectError(
      await post(undefined, { authorization: t.basic('émile', password.normalize('NFD')) }),
      401,
      'invalid_credentials',
    );
  });

  it('matches usernames case-insensitively after NFKC', async () => {
    await withAlice();
    for (const name of ['ALICE@example.com', 'Ａlice@example.com', 'alice@EXAMPLE.COM']) {
      expect((await post(undefined, { authorization: t.basic(name, 'correct horse') })).statusCode).toBe(200);
    }
  });

  it('accepts the Basic scheme in any case', async () => {
    await withAlice();
    const value = t.basic('alice@example.com', 'correct horse').split(' ')[1];
    expect((await post(undefined, { authorization: `bAsIc ${value}` })).statusCode).toBe(200);
  });

  it.each([
    ['not base64', 'Basic %%%'],
    ['no colon', `Basic ${Buffer.from('alice').toString('base64')}`],
    ['not UTF-8', `Basic ${Buffer.from([0x61, 0x3a, 0xff, 0xfe]).toString('base64')}`],
  ])('answers 400 to a Basic header that is %s', async (_what, authorization) => {
    await withAlice();
    expectError(await post(undefined, { authorization }), 400, 'malformed_authorization_header');
  });

  it('answers 401 to a header of another scheme', async () => {
    await withAlice();
    expectError(await post(undefined, { authorization: 'Bearer abc' }), 401, 'missing_credentials');
  });
});

describe('Variant B (7.4): {"username","password"} body', () => {
  it('issues a token, with ttl accepted too', async () => {
    await withAlice();
    const res = await post(JSON.stringify({ username: 'alice@example.com', password: 'correct horse', ttl: 60 }));
    expect(res.statusCode).toBe(200);
    const { payload } = decodeJwt(res.json().access_token);
    expect((payload.exp as number) - (payload.iat as number)).toBe(60);
  });

  it.each([
    ['username missing', { password: 'correct horse' }],
    ['password missing', { username: 'alice@example.com' }],
    ['username not a string', { username: 7, password: 'correct horse' }],
    ['password not a string', { username: 'alice@example.com', password: ['x'] }],
    ['username empty', { username: '', password: 'correct horse' }],
    ['ttl out of range', { username: 'alice@example.com', password: 'correct horse', ttl: 100000 }],
  ])('answers 400 when %s', async (_what, body) => {
    await withAlice();
    expectError(await post(JSON.stringify(body)), 400, 'invalid_request');
  });

  it('answers 401 missing_credentials when neither header nor body carries credentials', async () => {
    await withAlice();
    const res = await post();
    expectError(res, 401, 'missing_credentials');
    expect(res.headers['www-authenticate']).toContain('Basic realm="tessera"');
    expectError(await post('{"ttl":60}'), 401, 'missing_credentials');
  });
});

describe('failures', () => {
  it('gives unknown user and wrong password the same answer and the same hashing work', async () => {
    await withAlice();
    const verify = vi.spyOn(t.tessera.hasher, 'verify');
    const dummy = vi.spyOn(t.tessera.hasher, 'verifyDummy');
    const wrong = await post(undefined, { authorization: t.basic('alice@example.com', 'wrong horse') });
    const unknown = await post(undefined, { authorization: t.basic('mallory@example.com', 'wrong horse') });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(unknown.body).toBe(wrong.body);
    expect(unknown.headers['www-authenticate']).toBe(wrong.headers['www-authenticate']);
    expect(wrong.json().error_code).toBe('invalid_credentials');
    expect(verify).toHaveBeenCalledTimes(1);
    expect(dummy).toHaveBeenCalledTimes(1);
  });

  it('says password_expired (401) only once the password was verified right', async () => {
    await withAlice();
    const user = (await t.tessera.users.findByUsername('alice@example.com'))!;
    await t.tessera.users.expirePassword(user.uid, new Date(t.tessera.clock()));
    expectError(
      await post(undefined, { authorization: t.basic('alice@example.com', 'correct horse') }),
      401,
      'password_expired',
    );
    expectError(
      await post(undefined, { authorization: t.basic('alice@example.com', 'wrong horse') }),
      401,
      'invalid_credentials',
    );
  });

  it('rejects a large body with 413 without a 500', async () => {
    await withAlice();
    const big = JSON.stringify({ username: 'alice@example.com', password: 'x'.repeat(20_000) });
    expectError(await post(big), 413, 'body_too_large');
  });

  it('never echoes a malformed body, which may hold a password', async () => {
    await withAlice();
    const res = await post('{"username":"alice@example.com","password": hunter2secret}');
    expectError(res, 400, 'malformed_json');
    expect(res.body).not.toContain('hunter2secret');
  });

  it('refuses prototype-poisoning keys', async () => {
    await withAlice();
    expectError(
      await post('{"__proto__":{"ttl":5}}', { authorization: t.basic('alice@example.com', 'correct horse') }),
      400,
      'malformed_json',
    );
  });

  it('records the login time on success only', async () => {
    await withAlice();
    await post(undefined, { authorization: t.basic('alice@example.com', 'wrong horse') });
    expect((await t.tessera.users.findByUsername('alice@example.com'))!.lastLogin).toBeNull();
    await post(undefined, { authorization: t.basic('alice@example.com', 'correct horse') });
    expect((await t.tessera.users.findByUsername('alice@example.com'))!.lastLogin).toEqual(new Date(t.tessera.clock()));
  });
});

describe('--api-line', () => {
  it('7.22 uses the header and ignores body credentials', async () => {
    await withAlice({ apiLine: '7.22' });
    const body = JSON.stringify({ username: 'alice@example.com', password: 'correct horse' });
    expectError(await post(body), 401, 'missing_credentials');
    const res = await post(JSON.stringify({ username: 'x', password: 'y', ttl: 30 }), {
      authorization: t.basic('alice@example.com', 'correct horse'),
    });
    expect(res.statusCode).toBe(200);
  });

  it('7.4 requires the body and ignores the header', async () => {
    await withAlice({ apiLine: '7.4' });
    expectError(
      await post(undefined, { authorization: t.basic('alice@example.com', 'correct horse') }),
      400,
      'invalid_request',
    );
    expectError(await post('{}'), 400, 'invalid_request');
    const res = await post(JSON.stringify({ username: 'alice@example.com', password: 'correct horse' }), {
      authorization: t.basic('nobody', 'nothing'),
    });
    expect(res.statusCode).toBe(200);
  });

  it('both: a header selects Variant A even when the body has credentials', async () => {
    await withAlice();
    const body = JSON.stringify({ username: 'alice@example.com', password: 'correct horse' });
    expectError(await post(body, { authorization: t.basic('alice@example.com', 'wrong') }), 401, 'invalid_credentials');
  });
});

describe('password hashes', () => {
  it('rehashes on login when the argon2 parameters changed', async () => {
    await withAlice();
    const before = (await t.tessera.users.findCredential('alice@example.com'))!.passwords[0]!.hash;
    expect(before).toContain('m=1024,t=1,p=1');
    const stronger = await testTessera({
      dataDir: t.dataDir,
      argon2: { memoryCost: 2048, timeCost: 1, parallelism: 1 },
    });
    try {
      const res = await stronger.app.inject({
        method: 'POST',
        url: URL,
        headers: { authorization: t.basic('alice@example.com', 'correct horse') },
      });
      expect(res.statusCode).toBe(200);
    } finally {
      await stronger.app.close();
      await stronger.tessera.close();
    }
    const after = (await t.tessera.users.findCredential('alice@example.com'))!.passwords[0]!.hash;
    expect(after).toMatch(/^\$argon2id\$v=19\$m=2048,t=1,p=1\$/);
  });
});
