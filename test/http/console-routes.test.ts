import { afterEach, describe, expect, it } from 'vitest';
import { call, login } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
afterEach(() => t?.close());

describe('the console scope', () => {
  it('serves the built page at / under a strict CSP, never framed; the API keeps its JSON 404', async () => {
    t = await testTessera();
    await t.tessera.policy.update({ cm_session_timeout_minutes: 7 });
    const page = await t.app.inject({ method: 'GET', url: '/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toMatch(/<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js"><\/script>/);
    expect(page.body).not.toMatch(/<script>|<script type="module">/); // no inline script
    const csp = String(page.headers['content-security-policy']);
    for (const part of [
      "default-src 'self'",
      "script-src 'self'",
      "frame-ancestors 'none'",
      "connect-src 'self'",
      "base-uri 'none'",
    ]) {
      expect(csp).toContain(part);
    }
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['cache-control']).toBe('no-cache');
    const script = /src="(\/assets\/[^"]+)"/.exec(page.body)![1]!;
    const asset = await t.app.inject({ method: 'GET', url: script });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toContain('immutable');

    expect((await call(t, 'GET', '/console-settings.json')).body).toEqual({ idle_minutes: 7 });
    const missing = await call(t, 'GET', '/no/such/page');
    expect(missing.status).toBe(404);
    expect(missing.body.error_code).toBe('not_found');
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).headers['x-frame-options']).toBeUndefined();
  });

  it("challenges a script's request without Basic, so that a browser opens no credentials dialog", async () => {
    t = await testTessera();
    const plain = await t.app.inject({ method: 'GET', url: '/v1/users' });
    expect(plain.headers['www-authenticate']).toContain('Basic');
    const script = await t.app.inject({
      method: 'GET',
      url: '/v1/users',
      headers: { 'x-requested-with': 'tessera-console' },
    });
    expect(script.statusCode).toBe(401);
    expect(script.headers['www-authenticate']).toBe('Bearer realm="tessera"');
  });
});

describe('the routes the console needs', () => {
  it('GET /v1/password-rules tells anyone the rules of the policy in words', async () => {
    t = await testTessera();
    await t.tessera.policy.update({ password_min_length: 12, password_complexity: true });
    const res = await call(t, 'GET', '/v1/password-rules');
    expect(res.status).toBe(200);
    expect(res.body.min_length).toBe(12);
    expect(res.body.rules).toEqual(
      expect.arrayContaining([
        'at least 12 characters',
        'not one of the most common passwords',
        "not containing the user's name, its email or the email reversed",
      ]),
    );
  });

  it('GET /v1/keys lists the key ring for admins only', async () => {
    t = await testTessera();
    await t.addUser('root', 'root-password', 'admin');
    await t.addUser('viewer', 'viewer-password', 'cluster_viewer');
    const root = await login(t, 'root', 'root-password');
    await t.tessera.keys.rotate('RS256');
    const keys = await call(t, 'GET', '/v1/keys', { auth: root });
    expect(keys.status).toBe(200);
    expect(keys.body.map((k: { state: string; alg: string }) => `${k.state} ${k.alg}`).sort()).toEqual([
      'active ES256',
      'next RS256',
    ]);
    expect(keys.body.find((k: { state: string }) => k.state === 'next').activates_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect((await call(t, 'GET', '/v1/keys', { auth: await login(t, 'viewer', 'viewer-password') })).status).toBe(403);
  });

  it('POST /v1/users/{uid}/expire-password makes the next login choose a new password', async () => {
    t = await testTessera();
    await t.addUser('root', 'root-password', 'admin');
    const uid = await t.addUser('kim', 'kim-password-1', 'cluster_member');
    const root = await login(t, 'root', 'root-password');
    const res = await call(t, 'POST', `/v1/users/${uid}/expire-password`, { auth: root });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('password_expired');
    const next = await call(t, 'POST', '/v1/users/authorize', {
      body: { username: 'kim', password: 'kim-password-1' },
    });
    expect(next.body.error_code).toBe('password_expired');
    expect((await call(t, 'POST', '/v1/users/999/expire-password', { auth: root })).status).toBe(404);
  });
});
