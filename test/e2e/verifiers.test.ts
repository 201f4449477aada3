import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fastifyJwt from '@fastify/jwt';
import express from 'express';
import { expressjwt } from 'express-jwt';
import Fastify from 'fastify';
import buildGetJwks from 'get-jwks';
import { createLocalJWKSet, createRemoteJWKSet, jwtVerify } from 'jose';
import jwt, { type JwtHeader, type SigningKeyCallback } from 'jsonwebtoken';
import jwksClient, { expressJwtSecret, passportJwtSecret } from 'jwks-rsa';
import * as oidc from 'openid-client';
import passport from 'passport';
import { ExtractJwt, Strategy as JwtStrategy } from 'passport-jwt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, FAST_ARGON2_ENV, request, type ServeProcess, startServe } from '../helpers/cli.js';

/**
 * Tessera's tokens against the verifiers other services use, each set up as its own
 * documentation shows, fetching the JWKS from the real CLI server: a fresh token passes; a
 * tampered, an expired, a wrong-audience and a wrong-issuer one do not.
 */
const ALGS = ['ES256', 'RS256'] as const;
interface Expect {
  issuer: string;
  audience: string;
}
type Verify = (token: string, expect: Expect) => Promise<boolean>;

/** A service on a local port, set up by `build`: does it answer 200 to this token? */
async function viaService(build: (e: Expect) => express.Express, token: string, e: Expect): Promise<boolean> {
  const server = build(e).listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/`, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    return res.status === 200;
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

function verifiers(jwksUri: string): Record<string, Verify> {
  const rsaClient = jwksClient({ jwksUri });
  const getJwks = buildGetJwks();
  const remote = createRemoteJWKSet(new URL(jwksUri));
  return {
    'jsonwebtoken + jwks-rsa': (token, e) =>
      new Promise((resolve) => {
        const key = (header: JwtHeader, cb: SigningKeyCallback) =>
          rsaClient.getSigningKey(header.kid, (err, k) => cb(err, k?.getPublicKey()));
        jwt.verify(token, key, { algorithms: [...ALGS], issuer: e.issuer, audience: e.audience }, (err) =>
          resolve(!err),
        );
      }),
    'express-jwt': (token, e) =>
      viaService(
        ({ issuer, audience }) =>
          express()
            .use(
              expressjwt({
                secret: expressJwtSecret({ jwksUri, cache: true, rateLimit: true }) as never,
                algorithms: [...ALGS],
                issuer,
                audience,
              }),
            )
            .get('/', (_req, res) => void res.json({ ok: true }))
            .use(
              (_err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) =>
                void res.status(401).end(),
            ),
        token,
        e,
      ),
    'passport-jwt': (token, e) =>
      viaService(
        ({ issuer, audience }) => {
          const strategy = new JwtStrategy(
            {
              jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
              secretOrKeyProvider: passportJwtSecret({ jwksUri, cache: true }),
              issuer,
              audience,
              algorithms: [...ALGS],
            },
            (payload: unknown, done: (e: unknown, user: unknown) => void) => done(null, payload),
          );
          const p = new passport.Passport();
          p.use(strategy);
          return express()
            .use(p.initialize())
            .get('/', p.authenticate('jwt', { session: false }), (_req, res) => void res.json({ ok: true }));
        },
        token,
        e,
      ),
    '@fastify/jwt + get-jwks (domain: iss)': async (token, e) => {
      const app = Fastify();
      await app.register(fastifyJwt, {
        decode: { complete: true },
        secret: (_request: unknown, t: { header: { kid: string; alg: string }; payload: { iss: string } }) =>
          getJwks.getPublicKey({ kid: t.header.kid, domain: t.payload.iss, alg: t.header.alg }),
        verify: { allowedIss: e.issuer, allowedAud: e.audience },
      } as never);
      app.get('/', async (req) => {
        await req.jwtVerify();
        return { ok: true };
      });
      const res = await app.inject({ url: '/', headers: { authorization: `Bearer ${token}` } });
      await app.close();
      return res.statusCode === 200;
    },
    'jose createRemoteJWKSet': (token, e) =>
      jwtVerify(token, remote, { issuer: e.issuer, audience: e.audience, algorithms: [...ALGS] }).then(
        () => true,
        () => false,
      ),
    'openid-client discovery, then jose': async (token, e) => {
      const config = await oidc
        .discovery(new URL(e.issuer), 'a-service', undefined, undefined, {
          execute: [oidc.allowInsecureRequests],
        })
        .catch(() => undefined);
      if (!config) return false;
      const discovered = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!));
      return jwtVerify(token, discovered, {
        issuer: config.serverMetadata().issuer,
        audience: e.audience,
        algorithms: [...ALGS],
      }).then(
        () => true,
        () => false,
      );
    },
  };
}

describe.each(ALGS)('%s tokens of the real server, checked by other services’ verifiers', (alg) => {
  let dataDir: string;
  let server: ServeProcess;
  let tokens: { fresh: string; tampered: string; expired: string };
  let right: Expect;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-verifiers-'));
    server = await startServe(['--no-tls', '--signing-alg', alg], {
      ...FAST_ARGON2_ENV,
      TESSERA_DATA_DIR: dataDir,
      TESSERA_ADMIN_USERNAME: 'root',
      TESSERA_ADMIN_PASSWORD: 'root-password-1',
    });
    const login = async (ttl: number) =>
      (
        await request(`${server.url}/v1/users/authorize`, {
          method: 'POST',
          headers: { authorization: basic('root', 'root-password-1') },
          body: JSON.stringify({ ttl }),
        })
      ).json.access_token as string;
    const [fresh, expired] = await Promise.all([login(600), login(1)]);
    const [h, p, sig] = fresh.split('.');
    const payload = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const tampered = [
      h,
      Buffer.from(JSON.stringify({ ...payload, roles: ['admin'], uid: 99 })).toString('base64url'),
      sig,
    ].join('.');
    tokens = { fresh, tampered, expired: expired! };
    right = { issuer: server.url, audience: server.url };
    await new Promise((r) => setTimeout(r, 2100)); // the ttl-1 token is past exp
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('publishes its issuer, keys and algorithms at the discovery address', async () => {
    const doc = (await request(`${server.url}/.well-known/openid-configuration`)).json;
    expect(doc).toMatchObject({ issuer: server.url, jwks_uri: `${server.url}/.well-known/jwks.json` });
    expect(doc.id_token_signing_alg_values_supported).toEqual([alg]);
    expect((await request(`${server.url}/.well-known/oauth-authorization-server`)).json).toEqual(doc);
  });

  const names = Object.keys(verifiers('http://unused'));
  it.each(names)('%s: accepts a fresh token; refuses tampered, expired, wrong-audience, wrong-issuer', async (name) => {
    const verify = verifiers(`${server.url}/.well-known/jwks.json`)[name]!;
    const outcome = {
      fresh: await verify(tokens.fresh, right),
      tampered: await verify(tokens.tampered, right),
      expired: await verify(tokens.expired, right),
      wrongAudience: await verify(tokens.fresh, { ...right, audience: 'https://another-service.example' }),
      wrongIssuer: await verify(tokens.fresh, { ...right, issuer: 'https://another-issuer.example' }),
    };
    expect(outcome).toEqual({ fresh: true, tampered: false, expired: false, wrongAudience: false, wrongIssuer: false });
  });
});

describe('a rotation from EdDSA to ES256 on the real server', () => {
  it('publishes the new key before it signs: a verifier with the JWKS of that moment never meets an unknown kid', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-rotation-'));
    const server = await startServe(['--no-tls', '--signing-alg', 'EdDSA', '--key-activation-delay', '2'], {
      ...FAST_ARGON2_ENV,
      TESSERA_DATA_DIR: dataDir,
      TESSERA_ADMIN_USERNAME: 'root',
      TESSERA_ADMIN_PASSWORD: 'root-password-1',
    });
    try {
      const authorization = basic('root', 'root-password-1');
      const login = async () =>
        (await request(`${server.url}/v1/users/authorize`, { method: 'POST', headers: { authorization } })).json
          .access_token as string;
      const algOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).alg;
      const before = await login();
      expect(algOf(before)).toBe('EdDSA');
      const rotated = await request(`${server.url}/v1/keys/rotate`, {
        method: 'POST',
        headers: { authorization },
        body: '{"alg":"ES256"}',
      });
      expect(rotated.json).toMatchObject({ alg: 'ES256', kid: expect.any(String) });
      const cached = createLocalJWKSet((await request(`${server.url}/.well-known/jwks.json`)).json);
      let after = await login();
      for (let i = 0; i < 50 && algOf(after) !== 'ES256'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        after = await login();
      }
      expect(algOf(after)).toBe('ES256');
      const options = { issuer: server.url, audience: server.url, algorithms: ['EdDSA', 'ES256'] };
      await expect(jwtVerify(before, cached, options)).resolves.toBeDefined();
      await expect(jwtVerify(after, cached, options)).resolves.toBeDefined();
    } finally {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
