import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
beforeEach(async () => {
  t = await testTessera({ publicUrl: 'https://auth.example.com/', audiences: ['https://cluster.example.com'] });
});
afterEach(() => t.close());

describe('the well-known documents', () => {
  it.each(['/.well-known/jwks.json', '/.well-known/openid-configuration', '/.well-known/oauth-authorization-server'])(
    '%s: Cache-Control and an ETag; 304 without a body for If-None-Match',
    async (url) => {
      const first = await t.app.inject({ url });
      expect(first.statusCode).toBe(200);
      expect(first.headers['cache-control']).toBe('public, max-age=300');
      const etag = first.headers.etag as string;
      expect(etag).toMatch(/^"[\w-]+"$/);
      const again = await t.app.inject({ url, headers: { 'if-none-match': etag } });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
      expect((await t.app.inject({ url, headers: { 'if-none-match': '"other"' } })).statusCode).toBe(200);
    },
  );

  it('names the public URL, not the listen address, and changes its ETag when a key is staged', async () => {
    const doc = (await t.app.inject({ url: '/.well-known/openid-configuration' })).json();
    expect(doc).toEqual({
      issuer: 'https://auth.example.com',
      jwks_uri: 'https://auth.example.com/.well-known/jwks.json',
      tessera_login_endpoint: 'https://auth.example.com/v1/users/authorize',
      introspection_endpoint: 'https://auth.example.com/v1/introspect',
      id_token_signing_alg_values_supported: ['ES256'],
      subject_types_supported: ['public'],
      claims_supported: expect.arrayContaining(['iss', 'aud', 'sub', 'roles']),
    });
    const before = (await t.app.inject({ url: '/.well-known/jwks.json' })).headers.etag;
    await t.tessera.keys.rotate('RS256');
    const after = await t.app.inject({ url: '/.well-known/jwks.json', headers: { 'if-none-match': String(before) } });
    expect(after.statusCode).toBe(200);
    expect(
      after
        .json()
        .keys.map((k: { alg: string }) => k.alg)
        .sort(),
    ).toEqual(['ES256', 'RS256']);
  });
});
