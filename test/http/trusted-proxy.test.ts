import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

/**
 * Behind a proxy (--no-tls), every connection comes from the proxy: only --trusted-proxy
 * addresses have their X-Forwarded-For believed, so that each client is throttled, logged and
 * listed as itself — and a client that sends the header itself is not believed.
 */
describe('--trusted-proxy: the client a trusted proxy forwards', () => {
  let t: TestTessera;
  let admin: string;
  const PROXY = '192.0.2.10';

  beforeAll(async () => {
    t = await testTessera({ authRateLimit: 3, mtls: { trustedProxies: [`${PROXY}/32`] } });
    await t.addUser('root', 'root-password', 'admin');
    admin = await login(t, 'root', 'root-password');
  });
  afterAll(() => t.close());

  const guess = (remoteAddress: string, forwardedFor?: string, password = 'wrong') =>
    t.app.inject({
      method: 'POST',
      url: '/v1/users/authorize',
      remoteAddress,
      headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
      payload: { username: 'root', password },
    });

  it('throttles each forwarded client apart: one guesser does not lock the others out', async () => {
    for (let i = 0; i < 3; i++) expect((await guess(PROXY, '203.0.113.5')).statusCode).toBe(401);
    expect((await guess(PROXY, '203.0.113.5')).json().error_code).toBe('too_many_requests');
    // Another client through the same proxy logs in.
    expect((await guess(PROXY, '203.0.113.6', 'root-password')).statusCode).toBe(200);
  });

  it("shows the forwarded client in the event log and the session, never the proxy's address", async () => {
    const made = await guess(PROXY, '198.51.100.77, 203.0.113.8', 'root-password');
    expect(made.statusCode).toBe(200);
    const token = `JWT ${made.json().access_token}`;
    const rootUid = (await t.tessera.users.findByUsername('root'))!.uid;
    const sessions = (await call(t, 'GET', `/v1/users/${rootUid}/sessions`, { auth: token })).body as {
      client_ip: string;
      current: boolean;
    }[];
    // The rightmost address the trusted proxy forwarded: the one it saw (the left ones the client wrote itself).
    expect(sessions.find((s) => s.current)?.client_ip).toBe('203.0.113.8');
    await t.tessera.eventWriter.flush();
    const events = (await call(t, 'GET', '/v1/logs?type=authorize&order=desc&limit=20', { auth: admin })).body as {
      ip: string;
    }[];
    expect(events.map((e) => e.ip)).toContain('203.0.113.8');
    expect(events.map((e) => e.ip)).not.toContain(PROXY);
  });

  it('takes a forwarded address only when it is one, and one client however its address is spelt', async () => {
    for (const bogus of ['garbage', 'A'.repeat(6000), '[::1]']) {
      const res = await guess(PROXY, bogus, 'root-password');
      expect(res.statusCode).toBe(200);
      const sessions = (await call(t, 'GET', '/v1/users/1/sessions', { auth: admin })).body as { client_ip: string }[];
      expect(sessions.map((s) => s.client_ip)).not.toContain(bogus);
    }
    // 203.0.113.90 and ::ffff:203.0.113.90 are one client: one throttle bucket (3 a minute here).
    for (const spelling of ['203.0.113.90', '::ffff:203.0.113.90', '203.0.113.90'])
      expect((await guess(PROXY, spelling)).statusCode).toBe(401);
    expect((await guess(PROXY, '::ffff:203.0.113.90')).json().error_code).toBe('too_many_requests');
  });

  it('believes nobody else: a client that sends X-Forwarded-For itself is still its own address', async () => {
    const untrusted = '198.51.100.9';
    for (let i = 0; i < 3; i++) expect((await guess(untrusted, `203.0.113.${100 + i}`)).statusCode).toBe(401);
    expect((await guess(untrusted, '203.0.113.200')).json().error_code).toBe('too_many_requests');
  });
});

describe('without --trusted-proxy', () => {
  it('believes no X-Forwarded-For', async () => {
    const t = await testTessera({ authRateLimit: 2 });
    try {
      await t.addUser('root', 'root-password', 'admin');
      const guess = (forwardedFor: string) =>
        t.app.inject({
          method: 'POST',
          url: '/v1/users/authorize',
          remoteAddress: '192.0.2.10',
          headers: { 'x-forwarded-for': forwardedFor },
          payload: { username: 'root', password: 'wrong' },
        });
      await guess('203.0.113.1');
      await guess('203.0.113.2');
      expect((await guess('203.0.113.3')).json().error_code).toBe('too_many_requests');
    } finally {
      await t.close();
    }
  });
});
