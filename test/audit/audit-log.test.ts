import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { call, login } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
afterEach(() => t.close());

/** A real pino logger whose lines land in an array. */
function capture() {
  const lines: string[] = [];
  const logger = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) });
  return { logger, lines, records: () => lines.map((l) => JSON.parse(l)).filter((r) => r.audit) };
}

describe('audit log', () => {
  it('writes one line per security event, who acted apart from what it is about, with outcome, address and request id', async () => {
    const log = capture();
    t = await testTessera({}, { logger: log.logger });
    await t.addUser('root', 'root-password', 'admin');
    const root = await login(t, 'root', 'root-password');
    await call(t, 'POST', '/v1/users/authorize', { body: { username: 'root', password: 'bad-password' } });
    const created = await call(t, 'POST', '/v1/users', {
      auth: root,
      body: { username: 'kim', password: 'kim-password-1', role: 'none' },
    });
    await call(t, 'PUT', `/v1/users/${created.body.uid}`, { auth: root, body: { name: 'Kim', role: 'db_viewer' } });
    await call(t, 'PUT', '/v1/cluster/policy', { auth: root, body: { login_lockout_threshold: 1 } });
    await call(t, 'POST', '/v1/users/authorize', { body: { username: 'kim', password: 'bad-password' } });
    await call(t, 'POST', `/v1/users/${created.body.uid}/unlock`, { auth: root });
    await call(t, 'PUT', '/v1/users/password', {
      body: { username: 'kim', old_password: 'kim-password-1', new_password: 'kim-password-2' },
    });
    const role = await call(t, 'POST', '/v1/roles', { auth: root, body: { name: 'ops', management: 'db_viewer' } });
    const rotated = await call(t, 'POST', '/v1/keys/rotate', { auth: root });
    await call(t, 'DELETE', '/v1/cluster/certificates/mtls_trusted_ca', { auth: root });
    await call(t, 'DELETE', `/v1/users/${created.body.uid}`, { auth: root });

    // event:outcome:actor>what it is about (a user's name, or another object)
    const events = log.records().map((r) => `${r.audit}:${r.outcome}:${r.actor ?? '-'}>${r.username ?? r.target}`);
    expect(events).toEqual([
      'user_create:success:->root', // the CLI: "ip":"local"
      'authorize:success:root>root',
      'authorize:failure:->root',
      'user_create:success:root>kim',
      'user_update:success:root>kim',
      'policy_update:success:root>policy',
      // kim's name became "Kim" (a login): the lines after show the user as it is named now.
      'lockout:success:->Kim',
      'authorize:failure:->kim',
      'unlock:success:root>Kim',
      'password_change:success:Kim>Kim',
      `role_create:success:root>role ${role.body.uid} (ops)`,
      `key_rotate:success:root>signing_key ${rotated.body.kid}`,
      'trusted_ca_delete:success:root>trusted_ca',
      'user_delete:success:root>Kim',
    ]);
    const failure = log.records().find((r) => r.audit === 'authorize' && r.outcome === 'failure');
    expect(failure).toMatchObject({ reason: 'invalid_credentials', ip: '127.0.0.1', request_id: expect.any(String) });
    expect(log.records().find((r) => r.audit === 'user_update')).toMatchObject({
      changes: ['name', 'role'],
      actor_uid: 1,
      actor: 'root',
      uid: created.body.uid,
      username: 'kim',
    });
    expect(log.records()[0]).toMatchObject({ ip: 'local', request_id: 'cli', uid: 1 });
    for (const r of log.records()) if (r.actor !== undefined) expect(r.actor_uid).toEqual(expect.any(Number));
  });

  it('never writes a password, hash or token anywhere in the logs', async () => {
    const log = capture();
    t = await testTessera({}, { logger: log.logger });
    const secrets = ['root-password', 'bad-password-x', 'kim-password-1', 'kim-password-2', 'leaky-body-secret'];
    await t.addUser('root', 'root-password', 'admin');
    const root = await login(t, 'root', 'root-password');
    const token = root.slice(4);
    await call(t, 'GET', '/v1/users', { auth: root });
    await call(t, 'GET', '/v1/users', { auth: t.basic('root', 'root-password') });
    await call(t, 'POST', '/v1/users/authorize', { body: { username: 'root', password: 'bad-password-x' } });
    await call(t, 'POST', '/v1/users', {
      auth: root,
      body: { username: 'kim', password: 'kim-password-1', role: 'none' },
    });
    await call(t, 'PUT', '/v1/users/password', {
      body: { username: 'kim', old_password: 'kim-password-1', new_password: 'kim-password-2' },
    });
    await t.app.inject({ method: 'POST', url: '/v1/users/authorize', payload: '{"password": leaky-body-secret' });
    const hashes = (await t.tessera.users.findCredential('kim'))!.passwords.map((p) => p.hash);

    const all = log.lines.join('\n');
    expect(log.records().length).toBeGreaterThan(4);
    for (const secret of [...secrets, token, ...hashes, '$argon2id$']) expect(all).not.toContain(secret);
  });
});
