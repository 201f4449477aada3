import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DIRECTORY_CONCURRENCY } from '../../src/auth/realms/ldap-realm.js';
import { call, login } from '../helpers/http.js';
import { freshPostgres, freshRedisPrefix, proxyTo, REDIS_URL } from '../helpers/services.js';
import {
  type Directory,
  directorySettings,
  group,
  groupDn,
  person,
  slapdAvailable,
  startDirectory,
} from '../helpers/slapd.mjs';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A CA of the test's own and a certificate for 127.0.0.1 that it signed, made with openssl. */
function makeCa(dir: string): { caFile: string; certFile: string; keyFile: string } {
  const f = (name: string) => path.join(dir, name);
  const run = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  run(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=Tessera test LDAP CA',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
  );
  run(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-subj',
    '/CN=127.0.0.1',
    '-keyout',
    f('server.key'),
    '-out',
    f('server.csr'),
  );
  writeFileSync(f('ext.cnf'), 'subjectAltName=IP:127.0.0.1\n');
  run(
    'x509',
    '-req',
    '-in',
    f('server.csr'),
    '-CA',
    f('ca.pem'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    f('ext.cnf'),
    '-out',
    f('server.pem'),
  );
  return { caFile: f('ca.pem'), certFile: f('server.pem'), keyFile: f('server.key') };
}

describe.skipIf(!slapdAvailable())('LDAP: TLS and the guards of local logins', () => {
  let dir: Directory;
  let certs: ReturnType<typeof makeCa>;
  let tmp: string;

  beforeAll(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'tessera-ldap-tls-'));
    certs = makeCa(tmp);
    dir = await startDirectory(person('dave', 'dave-pw-1') + group('ops', ['dave']), { tls: certs });
  });
  afterAll(async () => {
    await dir?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  const settings = (extra: Record<string, unknown> = {}) => directorySettings(dir.url, extra);

  async function node(overrides: Record<string, unknown> = {}): Promise<TestTessera> {
    const t = await testTessera(overrides);
    cleanups.push(() => t.close());
    return t;
  }

  it('speaks StartTLS verified against ca_cert, and refuses a directory whose certificate it cannot verify', async () => {
    const t = await node();
    await t.addUser('root', 'root-password', 'admin');
    const admin = await login(t, 'root', 'root-password');
    const untrusted = await call(t, 'PUT', '/v1/cluster/ldap', { auth: admin, body: settings({ starttls: true }) });
    expect(untrusted.status).toBe(400);
    expect(untrusted.body.error_code).toBe('ldap_connection_failed');
    expect(untrusted.body.message).toMatch(/certificate/i);
    const ca = readFileSync(certs.caFile, 'utf8');
    const trusted = await call(t, 'PUT', '/v1/cluster/ldap', {
      auth: admin,
      body: settings({ starttls: true, ca_cert: ca }),
    });
    expect(trusted.status, JSON.stringify(trusted.body)).toBe(200);
    expect(
      (
        await call(t, 'POST', '/v1/ldap_mappings', {
          auth: admin,
          body: { name: 'Ops', dn: groupDn('ops'), role_uids: [2] },
        })
      ).status,
    ).toBe(200);
    expect(
      (await call(t, 'POST', '/v1/users/authorize', { body: { username: 'dave', password: 'dave-pw-1' } })).status,
    ).toBe(200);
  });

  it('passes over a first URI whose TLS fails (StartTLS to a server that is not LDAP), to the next that speaks it', async () => {
    const t = await node();
    await t.addUser('root', 'root-password', 'admin');
    const admin = await login(t, 'root', 'root-password');
    // A TLS server of the test's own: the StartTLS request, sent in the clear, gets no LDAP answer.
    const notLdap = tls.createServer({ cert: readFileSync(certs.certFile), key: readFileSync(certs.keyFile) }, (s) =>
      s.end(),
    );
    notLdap.on('tlsClientError', () => {});
    await new Promise<void>((r) => notLdap.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise((r) => notLdap.close(r)));
    const first = `ldap://127.0.0.1:${(notLdap.address() as net.AddressInfo).port}`;
    const put = await call(t, 'PUT', '/v1/cluster/ldap', {
      auth: admin,
      body: settings({
        uris: [first, dir.url],
        starttls: true,
        ca_cert: readFileSync(certs.caFile, 'utf8'),
        cache_ttl: 0,
      }),
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(
      (
        await call(t, 'POST', '/v1/ldap_mappings', {
          auth: admin,
          body: { name: 'Ops', dn: groupDn('ops'), role_uids: [2] },
        })
      ).status,
    ).toBe(200);
    for (let i = 0; i < 2; i++) {
      const res = await call(t, 'POST', '/v1/users/authorize', { body: { username: 'dave', password: 'dave-pw-1' } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
  });

  it('throttles guessing at directory passwords, and waits for the directory no longer than directory_timeout_s', async () => {
    const proxy = await proxyTo(dir.url);
    cleanups.push(() => proxy.close());
    const t = await node({ authRateLimit: 3, loginTimeoutMs: 9000 });
    await t.addUser('root', 'root-password', 'admin');
    const admin = await login(t, 'root', 'root-password');
    const put = await call(t, 'PUT', '/v1/cluster/ldap', {
      auth: admin,
      body: settings({ uris: [proxy.url], cache_ttl: 0 }),
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    await call(t, 'POST', '/v1/ldap_mappings', {
      auth: admin,
      body: { name: 'Ops', dn: groupDn('ops'), role_uids: [2] },
    });
    const codes = [];
    // The admin's own login was the first of the three verifications allowed a minute.
    for (let i = 0; i < 2; i++)
      codes.push(
        (await call(t, 'POST', '/v1/users/authorize', { body: { username: 'dave', password: `guess-${i}` } })).body
          .error_code,
      );
    const throttled = await call(t, 'POST', '/v1/users/authorize', {
      body: { username: 'dave', password: 'dave-pw-1' },
    });
    codes.push(throttled.body.error_code);
    expect(codes).toEqual(['invalid_credentials', 'invalid_credentials', 'too_many_requests']);
  });

  it('waits for a directory that does not answer no longer than directory_timeout_s', async () => {
    const proxy = await proxyTo(dir.url);
    cleanups.push(() => proxy.close());
    const t = await node({ loginTimeoutMs: 9000 });
    await t.addUser('root', 'root-password', 'admin');
    const admin = await login(t, 'root', 'root-password');
    const put = await call(t, 'PUT', '/v1/cluster/ldap', {
      auth: admin,
      body: settings({ uris: [proxy.url], directory_timeout_s: 5, cache_ttl: 0 }),
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    await call(t, 'POST', '/v1/ldap_mappings', {
      auth: admin,
      body: { name: 'Ops', dn: groupDn('ops'), role_uids: [2] },
    });
    proxy.partition();
    const started = performance.now();
    const silent = await call(t, 'POST', '/v1/users/authorize', { body: { username: 'dave', password: 'dave-pw-1' } });
    const ms = performance.now() - started;
    expect(silent.body.error_code).toBe('directory_unavailable');
    // directory_timeout_s (5 s) bounds the wait when the login deadline (9 s) is longer.
    expect(ms).toBeGreaterThan(4500);
    expect(ms).toBeLessThan(8000);
  });

  it('opens no more than DIRECTORY_CONCURRENCY connections to a directory that hangs, whatever the flood', async () => {
    // A forwarder of the test's own that counts connections, and holds every new one once told to.
    let hang = false;
    let open = 0;
    let opened = 0;
    const sockets = new Set<net.Socket>();
    const forwarder = net.createServer((client) => {
      open++;
      opened++;
      client.on('close', () => open--);
      sockets.add(client);
      client.on('error', () => {});
      if (hang) return void client.resume(); // accepted, read, never answered
      const up = net.connect(dir.port, '127.0.0.1');
      up.on('error', () => client.destroy());
      client.pipe(up).pipe(client);
      sockets.add(up);
    });
    await new Promise<void>((r) => forwarder.listen(0, '127.0.0.1', r));
    cleanups.push(() => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => forwarder.close(r));
    });
    const t = await node({ authRateLimit: 0 });
    await t.addUser('root', 'root-password', 'admin');
    const admin = await login(t, 'root', 'root-password');
    const url = `ldap://127.0.0.1:${(forwarder.address() as net.AddressInfo).port}`;
    expect(
      (await call(t, 'PUT', '/v1/cluster/ldap', { auth: admin, body: settings({ uris: [url], cache_ttl: 0 }) })).status,
    ).toBe(200);
    hang = true;
    await expect.poll(() => open).toBe(0); // the probe's connection closed
    opened = 0;
    const answers = Promise.all(
      Array.from({ length: 3 * DIRECTORY_CONCURRENCY }, (_, i) =>
        call(t, 'POST', '/v1/users/authorize', { body: { username: `flood-${i}`, password: 'x' } }),
      ),
    );
    // Before the first of them reaches its deadline (3 s), no more connections than places were opened.
    await new Promise((r) => setTimeout(r, 2000));
    expect(opened).toBe(DIRECTORY_CONCURRENCY);
    const flood = await answers;
    // And every connection to the silent directory is closed once its login has been answered.
    await expect.poll(() => open, { timeout: 2000 }).toBe(0);
    for (const r of flood)
      expect([r.status, ['directory_unavailable', 'try_again']]).toEqual([
        503,
        expect.arrayContaining([r.body.error_code]),
      ]);
  });

  it('locks a directory user out across two nodes (PostgreSQL + Redis), counted exactly under its name', async () => {
    const pg = await freshPostgres();
    cleanups.push(pg.drop);
    const shared = { databaseUrl: pg.url, redisUrl: REDIS_URL, redisKeyPrefix: freshRedisPrefix(), authRateLimit: 0 };
    const a = await node(shared);
    const b = await node(shared);
    await a.addUser('root', 'root-password', 'admin');
    const admin = await login(a, 'root', 'root-password');
    expect(
      (
        await call(a, 'PUT', '/v1/cluster/ldap', {
          auth: admin,
          body: settings({ starttls: true, ca_cert: readFileSync(certs.caFile, 'utf8') }),
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call(a, 'POST', '/v1/ldap_mappings', {
          auth: admin,
          body: { name: 'Ops', dn: groupDn('ops'), role_uids: [2] },
        })
      ).status,
    ).toBe(200);
    await a.tessera.policy.update({ login_lockout_threshold: 4, login_lockout_duration: 600 });
    // Both nodes know the user before the attack (its row is made at its first login).
    expect(
      (await call(b, 'POST', '/v1/users/authorize', { body: { username: 'dave', password: 'dave-pw-1' } })).status,
    ).toBe(200);
    const wrong = (t: TestTessera, i: number) =>
      call(t, 'POST', '/v1/users/authorize', { body: { username: 'dave', password: `wrong-${i}` } });
    const answers = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => wrong(i % 2 ? a : b, i)));
    const codes = answers.map((r) => r.body.error_code).sort();
    // Exactly four failures counted (two nodes, at once), then locked.
    expect(codes.filter((c) => c === 'invalid_credentials')).toHaveLength(4);
    expect(codes.filter((c) => c === 'account_locked')).toHaveLength(2);
    // A node trusts the user it read with a remembered password for a second (as for local users).
    a.advance(2);
    b.advance(2);
    for (const t of [a, b]) {
      const right = await call(t, 'POST', '/v1/users/authorize', { body: { username: 'dave', password: 'dave-pw-1' } });
      expect(right.body.error_code).toBe('account_locked');
    }
    // An admin unlocks it like a local user.
    const users = await a.tessera.users.findByUsername('dave');
    expect((await call(a, 'POST', `/v1/users/${users!.uid}/unlock`, { auth: admin })).status).toBe(200);
    expect(
      (await call(b, 'POST', '/v1/users/authorize', { body: { username: 'dave', password: 'dave-pw-1' } })).status,
    ).toBe(200);
  });
});
