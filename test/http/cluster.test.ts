import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../src/policy/policy.js';
import { call, login } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
let root: string;
beforeEach(async () => {
  t = await testTessera();
  await t.addUser('root', 'root-password', 'admin');
  await t.addUser('ivan', 'ivan-password-1', 'user_manager');
  await t.addUser('nobody', 'nobody-password', 'none');
  root = await login(t, 'root', 'root-password');
});
afterEach(() => t.close());

const CLUSTER_DEFAULTS = {
  name: '127.0.0.1',
  password_complexity: false,
  password_min_length: 8,
  password_expiration_duration: 0,
  cm_session_timeout_minutes: 15,
  session_max_lifetime_minutes: 720,
  control_plane_basic_authentication: true,
  metrics_auth: false,
  min_control_TLS_version: '1.2',
  mtls_certificate_authentication: false,
  mtls_client_cert_subject_validation_type: 'disabled',
  mtls_authorized_subjects: [],
};
const LOCKOUT_DEFAULTS = {
  login_lockout_threshold: 5,
  login_lockout_duration: 1800,
  login_lockout_counter_reset_after: 900,
};

describe('GET/PUT /v1/cluster: the password rules, the console timeout, Basic on or off', () => {
  it('?dry_run in every form answers what would be and writes nothing; a parameter the request does not take is refused', async () => {
    const before = (await call(t, 'GET', '/v1/cluster', { auth: root })).body;
    for (const form of ['dry_run', 'dry_run=1', 'dry_run=true']) {
      const dry = await call(t, 'PUT', `/v1/cluster?${form}`, {
        auth: root,
        body: { password_min_length: 12, control_plane_basic_authentication: false },
      });
      expect([dry.status, dry.body.password_min_length], form).toEqual([200, 12]);
      expect((await call(t, 'GET', '/v1/cluster', { auth: root })).body, form).toEqual(before);
    }
    // Basic still works: the dry run turned nothing off.
    const basic = `Basic ${Buffer.from('root:root-password').toString('base64')}`;
    expect((await call(t, 'GET', '/v1/cluster', { auth: basic })).status).toBe(200);
    const logged = (await call(t, 'GET', '/v1/logs', { auth: root })).body as { type: string }[];
    expect(logged.filter((e) => e.type === 'cluster_updated')).toEqual([]);
    // Invalid in a dry run too.
    expect(
      (await call(t, 'PUT', '/v1/cluster?dry_run', { auth: root, body: { password_min_length: -1 } })).status,
    ).toBe(400);
    for (const [method, url, body] of [
      ['PUT', '/v1/cluster?dryrun=1', { password_min_length: 13 }],
      ['PUT', '/v1/cluster/policy?dry_run=1', { login_lockout_threshold: 6 }],
      ['GET', '/v1/users?limit=1', undefined],
    ] as const) {
      const res = await call(t, method, url, { auth: root, body });
      expect([res.status, res.body.error_code], url).toEqual([400, 'invalid_request']);
      expect(res.body.message, url).toMatch(/unknown query parameter/);
    }
    expect((await call(t, 'GET', '/v1/cluster', { auth: root })).body).toEqual(before);
    expect((await call(t, 'GET', '/v1/cluster/policy', { auth: root })).body).toEqual(LOCKOUT_DEFAULTS);
  });

  it("starts at the product's defaults; anyone with view_cluster_info reads it, only an admin changes it", async () => {
    expect((await call(t, 'GET', '/v1/cluster', { auth: root })).body).toEqual(CLUSTER_DEFAULTS);
    const manager = await login(t, 'ivan', 'ivan-password-1');
    expect((await call(t, 'GET', '/v1/cluster', { auth: manager })).status).toBe(200);
    expect((await call(t, 'PUT', '/v1/cluster', { auth: manager, body: { password_min_length: 12 } })).status).toBe(
      403,
    );
    expect((await call(t, 'GET', '/v1/cluster', { auth: await login(t, 'nobody', 'nobody-password') })).status).toBe(
      403,
    );
    // Vault's connection check: Basic credentials on GET /v1/cluster tell good from bad.
    expect((await call(t, 'GET', '/v1/cluster', { auth: t.basic('root', 'root-password') })).body.name).toBe(
      '127.0.0.1',
    );
    expect((await call(t, 'GET', '/v1/cluster', { auth: t.basic('root', 'wrong') })).status).toBe(401);
  });

  it('changes what it names, keeps the rest, and persists', async () => {
    const res = await call(t, 'PUT', '/v1/cluster', {
      auth: root,
      body: { name: 'prod.example.com', password_min_length: 12, cm_session_timeout_minutes: 30 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...CLUSTER_DEFAULTS,
      name: 'prod.example.com',
      password_min_length: 12,
      cm_session_timeout_minutes: 30,
    });
    const again = await testTessera({ dataDir: t.dataDir });
    try {
      expect(await again.tessera.policy.get()).toMatchObject({
        name: 'prod.example.com',
        password_min_length: 12,
        cm_session_timeout_minutes: 30,
      });
    } finally {
      await again.app.close();
      await again.tessera.close();
    }
    // The console's idle sign-out follows it.
    expect((await t.app.inject({ method: 'GET', url: '/console-settings.json' })).json()).toEqual({ idle_minutes: 30 });
  });

  it.each([
    { password_min_length: 7 },
    { password_min_length: 257 },
    { password_expiration_duration: 3651 },
    { cm_session_timeout_minutes: 0 },
    { password_complexity: 'yes' },
    { control_plane_basic_authentication: 'no' },
    { metrics_auth: 1 },
    { min_control_TLS_version: '1.1' },
    { min_control_TLS_version: 1.3 },
    { login_lockout_threshold: 3 }, // a cluster setting, kept at /v1/cluster/policy
    { uid: 1 },
    { unknown_setting: 1 },
  ])('refuses %j with 400 naming the field, and changes nothing', async (body) => {
    const res = await call(t, 'PUT', '/v1/cluster', { auth: root, body });
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe('invalid_request');
    expect(res.body.message).toContain(Object.keys(body)[0]);
    expect(await t.tessera.policy.get()).toEqual(DEFAULT_POLICY);
  });

  it("takes the product's PATCH change_password_hashing_algorithm (the documented body), keeps argon2id, and audits what was asked", async () => {
    const audited: string[] = [];
    t.tessera.events.on(
      'audited',
      (r: { event: string; changes?: string[] }) =>
        r.event === 'password_hashing_algorithm' && audited.push(...(r.changes ?? [])),
    );
    const patch = (body: unknown, auth = root) =>
      t.app.inject({
        method: 'PATCH',
        url: '/v1/cluster/change_password_hashing_algorithm',
        headers: { authorization: auth },
        payload: JSON.stringify(body),
      });
    const alreadySet = async (algorithm: string) => {
      const res = await patch({ algorithm });
      expect([res.statusCode, res.json()], algorithm).toEqual([
        400,
        { error_code: 'invalid_request', message: `this algorithm is already set: ${algorithm}` },
      ]);
    };
    // A cluster starts at the product's default, SHA-256: asking for it is asking for what is set.
    await alreadySet('SHA-256');
    // The docs' example body.
    const ok = await patch({ algorithm: 'PBKDF2' });
    expect([ok.statusCode, ok.json()]).toEqual([200, {}]);
    await alreadySet('PBKDF2');
    expect((await patch({ algorithm: 'SHA-256' })).statusCode).toBe(200);
    await alreadySet('SHA-256');
    // What was asked is audited; what was already set is not.
    expect(audited).toEqual(['algorithm PBKDF2 asked; argon2id kept', 'algorithm SHA-256 asked; argon2id kept']);
    expect((await patch({ algorithm: 'MD5' })).json().error_code).toBe('invalid_request');
    expect((await patch({})).json().error_code).toBe('invalid_request');
    const user = await login(t, 'ivan', 'ivan-password-1');
    expect((await patch({ algorithm: 'SHA-256' }, user)).statusCode).toBe(403);
    // Passwords are argon2id still: a new one is hashed so.
    const uid = await t.addUser('hashed', 'Hashed-password-1', 'none');
    expect((await t.tessera.users.getCredential(uid))?.passwords[0]?.hash).toMatch(/^\$argon2id\$/);
  });

  it('is effective at once for new passwords', async () => {
    await call(t, 'PUT', '/v1/cluster', { auth: root, body: { password_min_length: 16, password_complexity: true } });
    const create = (password: string) =>
      call(t, 'POST', '/v1/users', { auth: root, body: { name: 'judy', password, role: 'none' } });
    expect((await create('Sh0rt!pass')).body.error_code).toBe('password_not_complex');
    expect((await create('long-enough-but-simple')).body.error_code).toBe('password_not_complex');
    expect((await create('Judy-Is-My-N4me-Here')).body.error_code).toBe('password_not_complex');
    expect((await create('Baaaa-4-very-long-one')).body.error_code).toBe('password_not_complex');
    expect((await create('Tr1cky-Long-Phrase!')).status).toBe(200);
    // The product's rule: not the user's email, nor the email reversed (whether the user has a name or not).
    const withEmail = (password: string) =>
      call(t, 'POST', '/v1/users', { auth: root, body: { name: 'ops7', email: 'kim@ex.io', password, role: 'none' } });
    expect((await withEmail('X1-kim@ex.io-Long!')).body.message).toContain('email');
    expect((await withEmail('X1-oi.xe@mik-Long!')).body.message).toContain('email reversed');
    const made = await withEmail('X1-mik-Long-Phrase!');
    expect(made.status).toBe(200);
    // A new email and a new password in one request: the password is held against the new email.
    const change = (password: string) =>
      call(t, 'PUT', `/v1/users/${made.body.uid}`, { auth: root, body: { email: 'lee@ex.io', password } });
    expect((await change('X1-lee@ex.io-Long!')).body.message).toContain('email');
    expect((await call(t, 'GET', `/v1/users/${made.body.uid}`, { auth: root })).body.email).toBe('kim@ex.io');
    expect((await change('X1-kim@ex.io-Long!')).status).toBe(200);
  });

  it('expires passwords older than password_expiration_duration days', async () => {
    await call(t, 'PUT', '/v1/cluster', { auth: root, body: { password_expiration_duration: 1 } });
    t.advance(86_400 + 1);
    const res = await call(t, 'POST', '/v1/users/authorize', {
      body: { username: 'ivan', password: 'ivan-password-1' },
    });
    expect(res.status).toBe(401);
    expect(res.body.error_code).toBe('password_expired');
  });
});

describe('GET/PUT /v1/cluster/policy: the lockout settings (cluster_settings)', () => {
  it('starts at the defaults; view_cluster_info reads, only an admin changes', async () => {
    expect((await call(t, 'GET', '/v1/cluster/policy', { auth: root })).body).toEqual(LOCKOUT_DEFAULTS);
    const manager = await login(t, 'ivan', 'ivan-password-1');
    expect((await call(t, 'GET', '/v1/cluster/policy', { auth: manager })).status).toBe(200);
    expect(
      (await call(t, 'PUT', '/v1/cluster/policy', { auth: manager, body: { login_lockout_threshold: 3 } })).status,
    ).toBe(403);
  });

  it('changes what it names and keeps the rest', async () => {
    const res = await call(t, 'PUT', '/v1/cluster/policy', { auth: root, body: { login_lockout_threshold: 0 } });
    expect(res.body).toEqual({ ...LOCKOUT_DEFAULTS, login_lockout_threshold: 0 });
    expect((await t.tessera.policy.get()).login_lockout_threshold).toBe(0);
  });

  it.each([
    { login_lockout_threshold: -1 },
    { login_lockout_counter_reset_after: 0 },
    { login_lockout_duration: 86401 },
    { password_min_length: 9 }, // a field of the cluster object, kept at /v1/cluster
  ])('refuses %j with 400 and changes nothing', async (body) => {
    const res = await call(t, 'PUT', '/v1/cluster/policy', { auth: root, body });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(Object.keys(body)[0]);
    expect(await t.tessera.policy.get()).toEqual(DEFAULT_POLICY);
  });
});
