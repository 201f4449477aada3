import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, login } from '../helpers/http.js';
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

/** A TCP listener of the test's own: `refuse` closes each connection at once, `blackhole` accepts and never answers. */
async function listener(kind: 'refuse' | 'blackhole'): Promise<string> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
    if (kind === 'refuse') s.destroy();
    else s.resume();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => {
    for (const s of sockets) s.destroy();
    return new Promise((r) => server.close(r));
  });
  return `ldap://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

/** A port nothing listens on. */
async function closedPort(): Promise<string> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise((r) => s.close(r));
  return `ldap://127.0.0.1:${port}`;
}

/**
 * `uris` are tried in order: a server that gives no LDAP answer (refused, reset, a TLS
 * failure, silence) is passed over for the next; an LDAP answer — also "no" — is the
 * directory's word and ends the search.
 */
describe.skipIf(!slapdAvailable())('LDAP uris fail over (real slapd)', () => {
  let dir: Directory;
  let empty: Directory;
  beforeAll(async () => {
    dir = await startDirectory(person('alice', 'alice-pw-1') + group('ops', ['alice']));
    empty = await startDirectory('');
  });
  afterAll(async () => {
    await dir?.stop();
    await empty?.stop();
  });

  async function node(overrides: Record<string, unknown> = {}): Promise<{ t: TestTessera; admin: string }> {
    const t = await testTessera({ authRateLimit: 0, ...overrides });
    cleanups.push(() => t.close());
    await t.addUser('root', 'root-password', 'admin');
    return { t, admin: await login(t, 'root', 'root-password') };
  }

  async function configure(t: TestTessera, admin: string, uris: string[], extra: Record<string, unknown> = {}) {
    const put = await call(t, 'PUT', '/v1/cluster/ldap', {
      auth: admin,
      body: directorySettings(uris[0]!, { uris, cache_ttl: 0, ...extra }),
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
  }

  it('passes over a first URI that refuses connections or closes them', async () => {
    const { t, admin } = await node();
    await configure(t, admin, [await closedPort(), await listener('refuse'), dir.url]);
    for (let i = 0; i < 2; i++) {
      const res = await call(t, 'POST', '/v1/users/authorize', { body: { username: 'alice', password: 'alice-pw-1' } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
  });

  it('passes over a first URI that accepts and never answers, within directory_timeout_s, and tries it last for a while', async () => {
    const { t, admin } = await node({ loginTimeoutMs: 9000 });
    let started = performance.now();
    await configure(t, admin, [await listener('blackhole'), dir.url], { directory_timeout_s: 5 });
    expect(performance.now() - started).toBeLessThan(8000);
    started = performance.now();
    const res = await call(t, 'POST', '/v1/users/authorize', { body: { username: 'alice', password: 'alice-pw-1' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // The silent server was just passed over: the next login goes to the one that answered first.
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('stops at the first directory that answers, also when its answer is no', async () => {
    const { t, admin } = await node();
    await configure(t, admin, [empty.url, dir.url]);
    const res = await call(t, 'POST', '/v1/users/authorize', { body: { username: 'alice', password: 'alice-pw-1' } });
    expect([res.status, res.body.error_code]).toEqual([401, 'invalid_credentials']);
  });
});
