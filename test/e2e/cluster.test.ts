import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, FAST_ARGON2_ENV, request, runCli, type ServeProcess, startServe } from '../helpers/cli.js';
import { freshPostgres, freshRedisPrefix, REDIS_URL } from '../helpers/services.js';

const json = (body: unknown) => JSON.stringify(body);
const kidOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).kid as string;

/** Two real `tessera serve` nodes over one PostgreSQL and one Redis. */
describe('a cluster of two nodes (PostgreSQL + Redis)', () => {
  let db: { url: string; drop(): Promise<void> };
  let a: ServeProcess;
  let b: ServeProcess;
  const dirs: string[] = [];
  const masterKey = randomBytes(32).toString('base64');
  let env: Record<string, string>;

  const node = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tessera-node-'));
    dirs.push(dir);
    // Every node of a cluster is reached at one address (the load balancer's): one issuer.
    return startServe(['--no-tls', '--key-activation-delay', '3', '--public-url', 'https://tessera.cluster.example'], {
      ...env,
      TESSERA_DATA_DIR: dir,
    });
  };
  const authorize = (server: ServeProcess, username: string, password: string) =>
    request(`${server.url}/v1/users/authorize`, { method: 'POST', body: json({ username, password }) });

  beforeAll(async () => {
    db = await freshPostgres();
    env = {
      ...FAST_ARGON2_ENV,
      TESSERA_DATABASE_URL: db.url,
      TESSERA_REDIS_URL: REDIS_URL,
      TESSERA_REDIS_KEY_PREFIX: freshRedisPrefix(),
      TESSERA_MASTER_KEY: masterKey,
      TESSERA_ADMIN_USERNAME: 'root',
      TESSERA_ADMIN_PASSWORD: 'root-password',
    };
    [a, b] = await Promise.all([node(), node()]); // both migrate at once
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.drop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('made one admin and one signing key, sealed at rest', async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      expect((await client.query('select count(*)::int as n from users')).rows[0].n).toBe(1);
      const keys = (await client.query('select private_jwk from signing_keys')).rows;
      expect(keys.length).toBeGreaterThanOrEqual(1);
      for (const k of keys) expect(k.private_jwk).toMatch(/^sealed\.v1\./);
    } finally {
      await client.end();
    }
    expect((await request(`${a.url}/readyz`)).json).toEqual({ status: 'ready', store: true, redis: true });
    const { host, pathname } = new URL(db.url);
    expect(a.stderr()).toContain(`(API line both, data in PostgreSQL ${host}/${pathname.slice(1)})`);
  });

  it('accepts on B a token from A, and lets a user made on A log in on B', async () => {
    const token = (await authorize(a, 'root', 'root-password')).json.access_token;
    expect((await request(`${b.url}/v1/users`, { headers: { authorization: `JWT ${token}` } })).status).toBe(200);
    const created = await request(`${a.url}/v1/users`, {
      method: 'POST',
      headers: { authorization: `JWT ${token}` },
      body: json({ username: 'nina', password: 'nina-password-1', role: 'db_member' }),
    });
    expect(created.status).toBe(200);
    expect((await authorize(b, 'nina', 'nina-password-1')).status).toBe(200);
  });

  it('locks exactly at the threshold under 50 parallel wrong attempts split between the nodes', async () => {
    const admin = { authorization: basic('root', 'root-password') };
    await request(`${a.url}/v1/users`, {
      method: 'POST',
      headers: admin,
      body: json({ username: 'oscar', password: 'oscar-password-1', role: 'none' }),
    });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => authorize(i % 2 ? a : b, 'oscar', `wrong-${i}`)),
    );
    const codes = results.map((r) => r.json.error_code);
    expect(codes.filter((c) => c === 'invalid_credentials')).toHaveLength(5);
    expect(codes.filter((c) => c === 'account_locked')).toHaveLength(45);
    expect((await authorize(a, 'oscar', 'oscar-password-1')).json.error_code).toBe('account_locked');
    expect((await authorize(b, 'oscar', 'oscar-password-1')).json.error_code).toBe('account_locked');
  });

  it('revokes on B within a second a password change made on A', async () => {
    const admin = { authorization: basic('root', 'root-password') };
    await request(`${a.url}/v1/users`, {
      method: 'POST',
      headers: admin,
      body: json({ username: 'pia', password: 'pia-password-1', role: 'none' }),
    });
    const token: string = (await authorize(b, 'pia', 'pia-password-1')).json.access_token;
    const uid = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).uid;
    const read = () => request(`${b.url}/v1/users/${uid}`, { headers: { authorization: `JWT ${token}` } });
    const readBasic = (password: string) =>
      request(`${b.url}/v1/users/${uid}`, { headers: { authorization: basic('pia', password) } });
    expect((await read()).status).toBe(200);
    expect((await readBasic('pia-password-1')).status).toBe(200); // B now remembers the password (verified-credentials cache)
    const changed = await request(`${a.url}/v1/users/password`, {
      method: 'PUT',
      body: json({ username: 'pia', old_password: 'pia-password-1', new_password: 'pia-password-2' }),
    });
    expect(changed.status).toBe(200);
    // B's remembered password stops matching within a second: the change raised the user's
    // epoch, which B learns at its next revocation poll (or its next read of the user).
    const refusedWithin = performance.now() + 1000;
    let old = await readBasic('pia-password-1');
    while (old.status === 200 && performance.now() < refusedWithin) old = await readBasic('pia-password-1');
    expect(old.status).toBe(401);
    expect((await readBasic('pia-password-2')).status).toBe(200);
    // The promise is "within a second": one second after the change, B must refuse it.
    await new Promise((r) => setTimeout(r, 1000));
    const after = await read();
    expect(after.status).toBe(401);
    expect(after.json.error_code).toBe('invalid_token');
  });

  it("ends a session made on A on both nodes within a second, while the user's other sessions live; then every session of the user, without a password change", async () => {
    const admin = { authorization: basic('root', 'root-password') };
    const made = await request(`${a.url}/v1/users`, {
      method: 'POST',
      headers: admin,
      body: json({ username: 'sam', password: 'sam-password-1', role: 'db_viewer' }),
    });
    const uid = made.json.uid;
    const stolen: string = (await authorize(a, 'sam', 'sam-password-1')).json.access_token;
    const kept: string = (await authorize(b, 'sam', 'sam-password-1')).json.access_token;
    const sidOf = (token: string) =>
      JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sid as string;
    const readOn = (node: ServeProcess, token: string) =>
      request(`${node.url}/v1/users/${uid}`, { headers: { authorization: `JWT ${token}` } });
    const refreshOn = (node: ServeProcess, token: string) =>
      request(`${node.url}/v1/users/refresh_jwt`, {
        method: 'POST',
        headers: { authorization: `JWT ${token}` },
        body: '{}',
      });
    // Both nodes know both sessions (A's token checked on B, and B's on A: each in its memory now).
    for (const node of [a, b]) for (const token of [stolen, kept]) expect((await readOn(node, token)).status).toBe(200);
    const listed = await request(`${b.url}/v1/users/${uid}/sessions`, { headers: admin });
    expect(listed.json.map((s: { sid: string }) => s.sid).sort()).toEqual([sidOf(stolen), sidOf(kept)].sort());

    const ended = await request(`${b.url}/v1/users/${uid}/sessions/${sidOf(stolen)}`, {
      method: 'DELETE',
      headers: admin,
    });
    expect(ended.status).toBe(200);
    await new Promise((r) => setTimeout(r, 1000)); // the promise: within a second on the other node
    for (const node of [a, b]) {
      expect((await readOn(node, stolen)).status).toBe(401);
      expect((await refreshOn(node, stolen)).status).toBe(401);
      expect((await readOn(node, kept)).status).toBe(200);
    }

    const all = await request(`${a.url}/v1/users/${uid}/sessions`, { method: 'DELETE', headers: admin });
    expect(all.json).toEqual({ ended: 1 });
    await new Promise((r) => setTimeout(r, 1000));
    expect((await readOn(b, kept)).status).toBe(401);
    expect(
      (await request(`${b.url}/v1/users/${uid}`, { headers: { authorization: basic('sam', 'sam-password-1') } }))
        .status,
    ).toBe(200);
  });

  it('takes on B an API key made on A, sees its change, and refuses it and its token on B within a second of a revocation on A', async () => {
    const admin = { authorization: basic('root', 'root-password') };
    const bot = await request(`${a.url}/v1/users`, {
      method: 'POST',
      headers: admin,
      body: json({ name: 'sync-bot', auth_method: 'api_key', role_uids: [3] }),
    });
    expect(bot.status).toBe(200);
    const uid: number = bot.json.uid;
    const made = await request(`${a.url}/v1/users/${uid}/api_keys`, {
      method: 'POST',
      headers: admin,
      body: json({ name: 'sync', ttl_days: 7 }),
    });
    expect(made.status).toBe(200);
    const { key, key_id } = made.json as { key: string; key_id: string };
    const withKey = { authorization: `Bearer ${key}` };
    expect((await request(`${b.url}/v1/cluster`, { headers: withKey })).status).toBe(200);
    const token: string = (
      await request(`${b.url}/v1/users/authorize`, { method: 'POST', headers: withKey, body: '{}' })
    ).json.access_token;
    const withToken = { authorization: `JWT ${token}` };
    expect((await request(`${a.url}/v1/cluster`, { headers: withToken })).status).toBe(200);
    // Listed and changed on either node.
    await request(`${b.url}/v1/users/${uid}/api_keys/${key_id}`, {
      method: 'PUT',
      headers: admin,
      body: json({ name: 'sync (renamed)' }),
    });
    const listed = await request(`${a.url}/v1/users/${uid}/api_keys`, { headers: admin });
    expect(listed.json.map((k: { name: string }) => k.name)).toEqual(['sync (renamed)']);

    expect(
      (await request(`${a.url}/v1/users/${uid}/api_keys/${key_id}`, { method: 'DELETE', headers: admin })).status,
    ).toBe(200);
    const revoked = performance.now();
    // B checked the key a moment ago (its copy is at most a second old): refused within the second.
    let onB = await request(`${b.url}/v1/cluster`, { headers: withKey });
    while (onB.status === 200 && performance.now() - revoked < 1500)
      onB = await request(`${b.url}/v1/cluster`, { headers: withKey });
    expect([onB.status, onB.json.error_code]).toEqual([401, 'invalid_api_key']);
    expect(performance.now() - revoked).toBeLessThan(1500); // a second, and the margin of a busy machine
    await new Promise((r) => setTimeout(r, 1000));
    const tokenOnB = await request(`${b.url}/v1/cluster`, { headers: withToken });
    expect([tokenOnB.status, tokenOnB.json.error_code]).toEqual([401, 'invalid_token']);
  });

  it('publishes a rotated key on B before any token is signed with it', async () => {
    const admin = { authorization: basic('root', 'root-password') };
    const oldKid = kidOf((await authorize(a, 'root', 'root-password')).json.access_token);
    const rotated = await request(`${a.url}/v1/keys/rotate`, { method: 'POST', headers: admin });
    expect(rotated.status).toBe(200);
    const newKid: string = rotated.json.kid;
    let seenOnB: number | undefined;
    let firstSigned: number | undefined;
    let newToken = '';
    const deadline = Date.now() + 15_000;
    while (firstSigned === undefined && Date.now() < deadline) {
      const jwks = (await request(`${b.url}/.well-known/jwks.json`)).json.keys.map((k: { kid: string }) => k.kid);
      if (seenOnB === undefined && jwks.includes(newKid)) seenOnB = Date.now();
      for (const server of [a, b]) {
        const token = (await authorize(server, 'root', 'root-password')).json.access_token;
        const kid = kidOf(token);
        expect([oldKid, newKid]).toContain(kid);
        if (kid === newKid && firstSigned === undefined) {
          firstSigned = Date.now();
          newToken = token;
        }
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(seenOnB).toBeDefined();
    expect(firstSigned).toBeDefined();
    expect(seenOnB!).toBeLessThan(firstSigned!);
    expect((await request(`${b.url}/v1/users`, { headers: { authorization: `JWT ${newToken}` } })).status).toBe(200);
    const jwks = (await request(`${a.url}/.well-known/jwks.json`)).json.keys.map((k: { kid: string }) => k.kid);
    expect(jwks).toEqual(expect.arrayContaining([oldKid, newKid]));
  });

  it('refuses to start a node without the master key the keys were sealed with', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tessera-node-'));
    dirs.push(dir);
    const res = await runCli(['serve', '--no-tls', '--listen', '127.0.0.1:0'], {
      env: { ...env, TESSERA_MASTER_KEY: '', TESSERA_DATA_DIR: dir },
    });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('TESSERA_MASTER_KEY');
  });
});
