import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import Fastify from 'fastify';
import { createIntrospector, createVerifier, TokenRejectedError, type Verifier } from 'tessera/verify';
import { requireRole as expressRole, tesseraExpress } from 'tessera/verify/express';
import { requireRole as fastifyRole, tesseraFastify } from 'tessera/verify/fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, FAST_ARGON2_ENV, request, runCli, type ServeProcess, startServe } from '../helpers/cli.js';

/** The verifier kit (the package's `tessera/verify` exports) against the real CLI server. */
describe('tessera/verify', () => {
  let dataDir: string;
  let server: ServeProcess;
  let admin: string;
  let viewer: string;
  const login = async (username: string, password: string, ttl = 600) =>
    (
      await request(`${server.url}/v1/users/authorize`, {
        method: 'POST',
        headers: { authorization: basic(username, password) },
        body: JSON.stringify({ ttl }),
      })
    ).json.access_token as string;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-kit-'));
    const env = { ...FAST_ARGON2_ENV, TESSERA_DATA_DIR: dataDir };
    server = await startServe(['--no-tls', '--key-activation-delay', '0'], {
      ...env,
      TESSERA_ADMIN_USERNAME: 'root',
      TESSERA_ADMIN_PASSWORD: 'root-password-1',
    });
    await runCli(['users', 'add', '--username', 'viewer', '--role', 'cluster_viewer', '--password-stdin'], {
      env,
      input: 'viewer-password-1',
    });
    await runCli(['users', 'add', '--username', 'svc', '--role', 'token_verifier', '--password-stdin'], {
      env,
      input: 'service-password-1',
    });
    [admin, viewer] = await Promise.all([login('root', 'root-password-1'), login('viewer', 'viewer-password-1')]);
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('verifies through discovery and returns typed claims; refuses a tampered, a foreign-audience and an expired token', async () => {
    const verifier = createVerifier({ issuer: server.url, audience: server.url });
    const claims = await verifier.verify(admin);
    expect(claims).toMatchObject({ iss: server.url, username: 'root', roles: ['admin'], uid: expect.any(Number) });
    const [h, p, s] = admin.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), uid: 42 }),
    ).toString('base64url');
    await expect(verifier.verify(`${h}.${forged}.${s}`)).rejects.toBeInstanceOf(TokenRejectedError);
    await expect(
      createVerifier({ issuer: server.url, audience: 'https://elsewhere' }).verify(admin),
    ).rejects.toBeInstanceOf(TokenRejectedError);
    const short = await login('root', 'root-password-1', 1);
    const strict = createVerifier({ issuer: server.url, audience: server.url, leewaySeconds: 0 });
    await new Promise((r) => setTimeout(r, 2100));
    await expect(strict.verify(short)).rejects.toBeInstanceOf(TokenRejectedError);
  });

  it("verifies an RS256 server's tokens too, and refuses a token of another issuer", async () => {
    const otherDir = mkdtempSync(path.join(tmpdir(), 'tessera-kit-rs-'));
    const other = await startServe(['--no-tls', '--signing-alg', 'RS256'], {
      ...FAST_ARGON2_ENV,
      TESSERA_DATA_DIR: otherDir,
      TESSERA_ADMIN_USERNAME: 'root',
      TESSERA_ADMIN_PASSWORD: 'root-password-1',
    });
    try {
      const token = (
        await request(`${other.url}/v1/users/authorize`, {
          method: 'POST',
          headers: { authorization: basic('root', 'root-password-1') },
        })
      ).json.access_token as string;
      await expect(createVerifier({ issuer: other.url, audience: other.url }).verify(token)).resolves.toMatchObject({
        iss: other.url,
      });
      await expect(createVerifier({ issuer: server.url, audience: other.url }).verify(token)).rejects.toBeInstanceOf(
        TokenRejectedError,
      );
    } finally {
      await other.stop();
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it('refetches the keys for a kid it has not seen (after a rotation), at most once a cooldown', async () => {
    const verifier = createVerifier({ issuer: server.url, audience: server.url, refetchCooldownMs: 300 });
    await verifier.verify(admin); // the key set is now cached
    const rotated = await request(`${server.url}/v1/keys/rotate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(rotated.status).toBe(200);
    let fresh = admin;
    for (
      let i = 0;
      i < 40 && JSON.parse(Buffer.from(fresh.split('.')[0]!, 'base64url').toString()).kid !== rotated.json.kid;
      i++
    ) {
      await new Promise((r) => setTimeout(r, 100));
      fresh = await login('root', 'root-password-1');
    }
    await new Promise((r) => setTimeout(r, 350)); // past the cooldown
    await expect(verifier.verify(fresh)).resolves.toMatchObject({ username: 'root' });
  });

  const cases = (url: () => string) => {
    const call = async (token?: string) => {
      const res = await fetch(`${url()}/admin-only`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
      return { status: res.status, body: await res.json(), challenge: res.headers.get('www-authenticate') };
    };
    return async () => {
      expect(await call(admin)).toMatchObject({ status: 200, body: { hello: 'root' } });
      expect(await call(viewer)).toMatchObject({
        status: 403,
        body: { error_code: 'forbidden', message: expect.any(String) },
      });
      expect(await call()).toMatchObject({
        status: 401,
        body: { error_code: 'invalid_token' },
        challenge: 'Bearer realm="tessera"',
      });
      expect(await call(`${admin}x`)).toMatchObject({ status: 401, body: { error_code: 'invalid_token' } });
    };
  };

  /** A Fastify service guarded by `verifier`, with one route for admins and user managers. */
  const guardedFastify = async (verifier: Verifier) => {
    const app = Fastify();
    await app.register(tesseraFastify(verifier));
    app.get('/admin-only', { preHandler: fastifyRole('admin', 'user_manager') }, async (req) => ({
      hello: req.tessera!.username,
    }));
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      await cases(() => address)();
    } finally {
      await app.close();
    }
  };

  it("guards a Fastify service: 401/403 in Tessera's error shape, requireRole", async () => {
    await guardedFastify(createVerifier({ issuer: server.url, audience: server.url }));
  });

  it('guards an Express service the same way', async () => {
    const app = express()
      .use(tesseraExpress(createVerifier({ issuer: server.url, audience: server.url })))
      .get(
        '/admin-only',
        expressRole('admin', 'user_manager'),
        (req, res) => void res.json({ hello: (req as { tessera?: { username: string } }).tessera!.username }),
      );
    const listener = app.listen(0, '127.0.0.1');
    await once(listener, 'listening');
    try {
      await cases(() => `http://127.0.0.1:${(listener.address() as AddressInfo).port}`)();
    } finally {
      listener.closeAllConnections();
      listener.close();
    }
  });

  it('with revocations: refuses a logged-out token and the tokens of a user whose role changed, within 2 s', async () => {
    const verifier = createVerifier({
      issuer: server.url,
      audience: server.url,
      revocations: { username: 'svc', password: 'service-password-1', pollMs: 200 },
    });
    try {
      const [a, b] = await Promise.all([login('viewer', 'viewer-password-1'), login('viewer', 'viewer-password-1')]);
      await expect(verifier.verify(a)).resolves.toMatchObject({ username: 'viewer' });
      const refusedWithin = async (token: string) => {
        const started = performance.now();
        while (performance.now() - started < 2000) {
          if (
            await verifier.verify(token).then(
              () => false,
              (e) => e instanceof TokenRejectedError,
            )
          )
            return performance.now() - started;
          await new Promise((r) => setTimeout(r, 50));
        }
        return Infinity;
      };
      expect(
        (await request(`${server.url}/v1/users/logout`, { method: 'POST', headers: { authorization: `Bearer ${a}` } }))
          .status,
      ).toBe(200);
      expect(await refusedWithin(a)).toBeLessThan(2000);
      await expect(verifier.verify(b)).resolves.toBeDefined(); // only that token
      const { uid } = await verifier.verify(b);
      const demoted = await request(`${server.url}/v1/users/${uid}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${admin}` },
        body: JSON.stringify({ role: 'db_viewer' }),
      });
      expect(demoted.status).toBe(200);
      expect(await refusedWithin(b)).toBeLessThan(2000);
      await expect(verifier.verify(admin)).resolves.toBeDefined();
    } finally {
      verifier.close();
    }
  });

  it('introspects instead, when asked: one call per token, cached briefly, guards a service alike', async () => {
    const introspector = createIntrospector({
      issuer: server.url,
      credentials: { username: 'svc', password: 'service-password-1' },
      cacheSeconds: 0.3,
    });
    const token = await login('viewer', 'viewer-password-1');
    viewer = await login('viewer', 'viewer-password-1'); // the earlier one ended with its role change
    await expect(introspector.verify(token)).resolves.toMatchObject({ username: 'viewer', roles: ['db_viewer'] });
    await request(`${server.url}/v1/users/logout`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    await expect(introspector.verify(token)).resolves.toBeDefined(); // the cached answer
    await new Promise((r) => setTimeout(r, 350));
    await expect(introspector.verify(token)).rejects.toBeInstanceOf(TokenRejectedError);
    await guardedFastify(introspector);
  });

  it('answers 503, not 401, while Tessera cannot be reached', async () => {
    const app = Fastify();
    await app.register(tesseraFastify(createVerifier({ issuer: 'http://127.0.0.1:1', audience: 'x' })));
    app.get('/', async () => ({}));
    const res = await app.inject({ url: '/', headers: { authorization: `Bearer ${admin}` } });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ error_code: 'verifier_unavailable' });
    await app.close();
  });
});
