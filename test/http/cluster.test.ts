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
/** The docs' GET /v1/cluster example's other fields, as a new cluster answers them (objects/cluster: defaults). */
const PRODUCT_CLUSTER_DEFAULTS = {
  alert_settings: {},
  created_time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
  email_alerts: false,
  email_from: '',
  rack_aware: false,
  smtp_host: '',
  smtp_password: '',
  smtp_port: 25,
  smtp_tls_mode: 'none',
  smtp_username: '',
  use_external_ipv6: true,
  wait_command: true,
  logrotate_settings: { maxage: 7, maxsize: '200M', rotate: 10 },
};
/** The docs' GET /v1/cluster/policy example, less the one field that is a cluster's state, not a default (default_provisioned_redis_version). */
const PRODUCT_POLICY_DEFAULTS = {
  db_conns_auditing: false,
  default_non_sharded_proxy_policy: 'single',
  default_sharded_proxy_policy: 'single',
  default_shards_placement: 'dense',
  redis_upgrade_policy: 'major',
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
    expect((await call(t, 'GET', '/v1/cluster/policy', { auth: root })).body).toMatchObject(LOCKOUT_DEFAULTS);
  });

  it("starts at the product's defaults; anyone with view_cluster_info reads it, only an admin changes it", async () => {
    const got = (await call(t, 'GET', '/v1/cluster', { auth: root })).body;
    expect(got).toMatchObject({ ...CLUSTER_DEFAULTS, ...PRODUCT_CLUSTER_DEFAULTS });
    expect(got).not.toHaveProperty('bigstore_driver'); // no default in the reference: absent until set
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
    expect(res.body).toMatchObject({
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

  it("keeps the product's other fields as given (the docs' example), merges alert settings by name, and persists them", async () => {
    const example = {
      email_alerts: true,
      alert_settings: { node_failed: true, node_memory: { enabled: true, threshold: '80' } },
    };
    const res = await call(t, 'PUT', '/v1/cluster', { auth: root, body: example });
    expect([res.status, res.body]).toEqual([200, expect.objectContaining({ name: '127.0.0.1', ...example })]);
    const more = await call(t, 'PUT', '/v1/cluster', {
      auth: root,
      body: { alert_settings: { cluster_node_joined: true }, smtp_host: 'smtp.example.com', reserved_ports: ['11000'] },
    });
    expect(more.body.alert_settings).toEqual({ ...example.alert_settings, cluster_node_joined: true });
    const again = await testTessera({ dataDir: t.dataDir });
    try {
      const root2 = await login(again, 'root', 'root-password');
      expect((await call(again, 'GET', '/v1/cluster', { auth: root2 })).body).toMatchObject({
        email_alerts: true,
        smtp_host: 'smtp.example.com',
        reserved_ports: ['11000'],
        alert_settings: { node_failed: true, cluster_node_joined: true },
        password_min_length: 8, // Tessera's own, untouched
      });
    } finally {
      await again.app.close();
      await again.tessera.close();
    }
    const logged = (await call(t, 'GET', '/v1/logs', { auth: root })).body as { type: string }[];
    expect(logged.filter((e) => e.type === 'cluster_updated')).toHaveLength(2);
  });

  it('takes back what GET answered as no change; a read-only field with another value is refused by name, writing nothing', async () => {
    await call(t, 'PUT', '/v1/cluster', { auth: root, body: { smtp_password: 'mail-secret-1', email_alerts: true } });
    const read = (await call(t, 'GET', '/v1/cluster', { auth: root })).body;
    const stored = await t.tessera.policy.get();
    const back = await call(t, 'PUT', '/v1/cluster', { auth: root, body: read });
    expect([back.status, back.body]).toEqual([200, read]);
    expect(await t.tessera.policy.get()).toEqual(stored);
    for (const [field, value] of [
      ['created_time', '2015-04-29T09:09:25Z'],
      ['rack_aware', true],
      ['wait_command', false],
    ] as const) {
      const res = await call(t, 'PUT', '/v1/cluster', { auth: root, body: { ...read, [field]: value } });
      expect([res.status, res.body.error_code, res.body.message], field).toEqual([
        400,
        'invalid_request',
        `${field} is read-only: send it as GET answers it, or leave it out`,
      ]);
    }
    expect(await t.tessera.policy.get()).toEqual(stored);
  });

  it('never stores or answers the SMTP password: "***" once set, "***" sent back keeps it, "" clears it', async () => {
    const set = await call(t, 'PUT', '/v1/cluster', { auth: root, body: { smtp_password: 'mail-secret-1' } });
    expect(set.body.smtp_password).toBe('***');
    expect(JSON.stringify(await t.tessera.policy.get())).not.toContain('mail-secret-1');
    const rows = await t.tessera.db.selectFrom('settings').select('value').execute();
    expect(JSON.stringify(rows)).not.toContain('mail-secret-1');
    expect(
      (await call(t, 'PUT', '/v1/cluster', { auth: root, body: { smtp_password: '***' } })).body.smtp_password,
    ).toBe('***');
    expect((await call(t, 'PUT', '/v1/cluster', { auth: root, body: { smtp_password: '' } })).body.smtp_password).toBe(
      '',
    );
  });

  it.each([
    { smtp_port: '25' },
    { smtp_tls_mode: 'ssl' },
    { alert_settings: { node_memory: { enabled: 'yes' } } },
    { alert_settings: { node_memory: { enabled: true, threshold: 80 } } },
    { reserved_ports: '11000' },
    { cm_port: 80 },
    { logrotate_settings: { maxage: 7, compress: true } },
  ])("refuses the product's field %j when the reference's type is not met, naming it", async (body) => {
    const res = await call(t, 'PUT', '/v1/cluster', { auth: root, body });
    expect([res.status, res.body.error_code]).toEqual([400, 'invalid_request']);
    expect(res.body.message).toContain(Object.keys(body)[0]);
    expect(await t.tessera.policy.get()).toEqual(DEFAULT_POLICY);
  });

  it("takes the product's alerts by name only, each of its type: the stored object cannot grow past them", async () => {
    for (const alert_settings of [
      { Hidden: true },
      { node_failed: { enabled: true } },
      { node_memory: true },
      { node_memory: { enabled: true, threshold: '80', extra: 1 } },
    ]) {
      const res = await call(t, 'PUT', '/v1/cluster', { auth: root, body: { alert_settings } });
      expect([res.status, res.body.error_code], JSON.stringify(alert_settings)).toEqual([400, 'invalid_request']);
      expect(res.body.message).toContain('alert_settings');
    }
    const deep = await t.app.inject({
      method: 'PUT',
      url: '/v1/cluster',
      headers: { authorization: root, 'content-type': 'application/json' },
      payload: `{"alert_settings":{"node_failed":${'['.repeat(2000)}${']'.repeat(2000)}}}`,
    });
    expect(deep.statusCode).toBe(400);
    expect(await t.tessera.policy.get()).toEqual(DEFAULT_POLICY);
    const all = { node_failed: true, cluster_node_joined: false, node_memory: { enabled: true, threshold: '90' } };
    for (let i = 0; i < 5; i++)
      expect((await call(t, 'PUT', '/v1/cluster', { auth: root, body: { alert_settings: all } })).status).toBe(200);
    expect((await t.tessera.policy.get()).kept_cluster.alert_settings).toEqual(all);
  });

  it('never keeps a private key where every reader of the cluster would see it', async () => {
    const key = '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIE=\n-----END PRIVATE KEY-----\n';
    for (const body of [{ smtp_host: key }, { reserved_ports: ['11000', key] }, { debuginfo_path: `x${key}` }]) {
      const res = await call(t, 'PUT', '/v1/cluster', { auth: root, body });
      expect([res.status, res.body.error_code]).toEqual([400, 'invalid_request']);
      expect(res.body.message).toMatch(/holds a private key/);
      expect(res.body.message).not.toContain('MC4CAQ');
    }
    // The product's certificate fields of the cluster object are answered from the certificates (GET /v1/cluster/certificates), not set here.
    const cert = await call(t, 'PUT', '/v1/cluster', {
      auth: root,
      body: { proxy_certificate: '-----BEGIN CERTIFICATE-----' },
    });
    expect(cert.body.message).toBe('proxy_certificate is read-only: send it as GET answers it, or leave it out');
    const path = await call(t, 'PUT', '/v1/cluster', { auth: root, body: { s3_ca_cert: '/etc/ca.pem\nsecond line' } });
    expect(path.status).toBe(400);
    expect(await t.tessera.policy.get()).toEqual(DEFAULT_POLICY);
  });

  it('answers encrypt_pkeys as whether keys are sealed at rest (a master key), and does not take another value', async () => {
    expect((await call(t, 'GET', '/v1/cluster', { auth: root })).body.encrypt_pkeys).toBe(false);
    const res = await call(t, 'PUT', '/v1/cluster', { auth: root, body: { encrypt_pkeys: true } });
    expect([res.status, res.body.message]).toEqual([
      400,
      'encrypt_pkeys is read-only: send it as GET answers it, or leave it out',
    ]);
  });

  it('answers a dry run of the kept fields as the real request would, writing nothing', async () => {
    const dry = await call(t, 'PUT', '/v1/cluster?dry_run', { auth: root, body: { email_alerts: true } });
    expect([dry.status, dry.body.email_alerts]).toEqual([200, true]);
    expect(await t.tessera.policy.get()).toEqual(DEFAULT_POLICY);
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
    expect((await call(t, 'GET', '/v1/cluster/policy', { auth: root })).body).toMatchObject({
      ...LOCKOUT_DEFAULTS,
      ...PRODUCT_POLICY_DEFAULTS,
    });
    const manager = await login(t, 'ivan', 'ivan-password-1');
    expect((await call(t, 'GET', '/v1/cluster/policy', { auth: manager })).status).toBe(200);
    expect(
      (await call(t, 'PUT', '/v1/cluster/policy', { auth: manager, body: { login_lockout_threshold: 3 } })).status,
    ).toBe(403);
  });

  it("keeps the database and shard fields as given (the docs' example), and takes back what GET answered", async () => {
    const res = await call(t, 'PUT', '/v1/cluster/policy', {
      auth: root,
      body: { default_shards_placement: 'sparse', default_sharded_proxy_policy: 'all-nodes' },
    });
    expect(res.status).toBe(200);
    const read = (await call(t, 'GET', '/v1/cluster/policy', { auth: root })).body;
    expect(read).toMatchObject({
      ...LOCKOUT_DEFAULTS,
      default_shards_placement: 'sparse',
      default_sharded_proxy_policy: 'all-nodes',
      default_non_sharded_proxy_policy: 'single',
    });
    const stored = await t.tessera.policy.get();
    expect((await call(t, 'PUT', '/v1/cluster/policy', { auth: root, body: read })).status).toBe(200);
    expect(await t.tessera.policy.get()).toEqual(stored);
    const wrong = await call(t, 'PUT', '/v1/cluster/policy', {
      auth: root,
      body: { default_shards_placement: 'spread' },
    });
    expect([wrong.status, wrong.body.message]).toEqual([400, expect.stringContaining('default_shards_placement')]);
  });

  it('changes what it names and keeps the rest', async () => {
    const res = await call(t, 'PUT', '/v1/cluster/policy', { auth: root, body: { login_lockout_threshold: 0 } });
    expect(res.body).toMatchObject({ ...LOCKOUT_DEFAULTS, login_lockout_threshold: 0 });
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
