import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Logger, pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type TesseraApp } from '../../src/app.js';
import { CLI_CONTEXT } from '../../src/audit/audit-log.js';
import { makeConfig } from '../../src/config/config.js';
import { openTessera, type Tessera } from '../../src/tessera.js';
import { readIssuer } from '../../src/tokens/store-issuer.js';
import { runCli } from '../helpers/cli.js';
import { call } from '../helpers/http.js';
import { freshPostgres } from '../helpers/services.js';
import { FAST_ARGON2, type TestTessera } from '../helpers/test-tessera.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Where {
  dataDir: string;
  databaseUrl?: string;
}

async function store(dialect: 'sqlite' | 'postgres'): Promise<Where> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-issuer-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  if (dialect === 'sqlite') return { dataDir };
  const pg = await freshPostgres();
  cleanups.push(() => pg.drop());
  return { dataDir, databaseUrl: pg.url };
}

interface Node {
  tessera: Tessera;
  app: TesseraApp;
  /** Moves this node's clock forward. */
  advance(seconds: number): void;
  /** Sets this node's clock to the real time, this many seconds ahead (never back). */
  catchUp(seconds: number): void;
  close(): Promise<void>;
}

/** A node of the store with a clock of its own (this many seconds ahead), reached at this port unless told its public URL. */
async function node(where: Where, port: number, publicUrl?: string, ahead = 0, logger?: Logger): Promise<Node> {
  let now = Date.now() + ahead * 1000;
  const config = makeConfig({
    ...where,
    argon2: FAST_ARGON2,
    listen: { host: '127.0.0.1', port },
    ...(publicUrl && { publicUrl }),
  });
  const tessera = await openTessera(config, { clock: () => now, logger });
  const app = buildApp(tessera);
  let closed: Promise<void> | undefined;
  const close = () => (closed ??= app.close().then(() => tessera.close()));
  cleanups.push(close);
  return {
    tessera,
    app,
    advance: (s) => void (now += s * 1000),
    catchUp: (s) => void (now = Math.max(now, Date.now() + s * 1000)),
    close,
  };
}

const as = (n: Node) => n as unknown as TestTessera;

async function token(n: Node, ttl = 86_400): Promise<string> {
  const res = await call(as(n), 'POST', '/v1/users/authorize', {
    body: { username: 'root', password: 'root-password', ttl },
  });
  expect(res.status).toBe(200);
  return `JWT ${res.body.access_token}`;
}

const usersWith = async (n: Node, auth: string) => (await call(as(n), 'GET', '/v1/users', { auth })).status;

const OLD = 'https://auth.example.com';
const NEW = 'https://tessera.example.com';

describe('one issuer per store', () => {
  it('refuses a node on a shared store whose issuer differs, from its listen address or its --public-url, naming both and both ways out', async () => {
    const where = await store('postgres');
    await node(where, 9001);
    await expect(node(where, 9002)).rejects.toThrow(
      /^this store's tokens are issued as https:\/\/127\.0\.0\.1:9001, and this node would issue them as https:\/\/127\.0\.0\.1:9002 \(from its listen address\).* --public-url https:\/\/127\.0\.0\.1:9001 .*"tessera issuer move https:\/\/127\.0\.0\.1:9002"/,
    );
    // A --public-url given no longer moves a shared store under the nodes that run on it.
    await expect(node(where, 9003, NEW)).rejects.toThrow(
      /issued as https:\/\/127\.0\.0\.1:9001, and this node would issue them as https:\/\/tessera\.example\.com:/,
    );
    const a = await node(where, 9001);
    expect((await readIssuer(a.tessera.db)).current).toBe('https://127.0.0.1:9001');
    expect(a.tessera.issuer).toEqual({});
  });

  it('moves a running cluster on purpose: every node picks up `tessera issuer move` and accepts both issuers until the overlap ends', async () => {
    const where = await store('postgres');
    const a = await node(where, 9001, OLD);
    await a.tessera.userCreation.create(
      null,
      { username: 'root', password: 'root-password', role: 'admin' },
      CLI_CONTEXT,
    );
    const fromA = await token(a);

    const moved = await runCli(['issuer', 'move', `${NEW}/`, '--overlap', '3600'], {
      env: { TESSERA_DATABASE_URL: where.databaseUrl!, TESSERA_DATA_DIR: where.dataDir },
    });
    expect(moved.stderr).toMatch(new RegExp(`now issued as ${NEW}; tokens of ${OLD} are accepted until \\d{4}-`));
    expect(moved.code).toBe(0);
    const shown = await runCli(['issuer', 'show'], {
      env: { TESSERA_DATABASE_URL: where.databaseUrl!, TESSERA_DATA_DIR: where.dataDir },
    });
    expect(shown.stdout).toBe(`${NEW}\n`);
    expect(shown.stderr).toMatch(new RegExp(`^Moved from ${OLD}, accepted until`));

    const c = await node(where, 9003, NEW); // refused before the move
    const fromC = await token(c);
    // a's copy of the store's issuer is at most a second old: read again as it is used. Its clock
    // stood still since its start, before the CLI ran (seconds on a busy machine): brought past c's
    // start, or c's token would be one issued in the future (beyond the 5 s leeway) to a.
    a.catchUp(1.1);
    await expect.poll(() => usersWith(a, fromC)).toBe(200);
    expect(await usersWith(c, fromA)).toBe(200);
    // A node of the old address may restart during the move, and is told to move.
    const late = await node(where, 9004, OLD);
    expect(late.tessera.issuer.movingTo).toEqual({ issuer: NEW, until: expect.any(Number) });

    // Past the overlap on every node's clock: a's stood still from its start, before the CLI (a subprocess, seconds on a busy machine) began it.
    for (const n of [a, c, late]) n.advance(3660);
    expect(await usersWith(c, fromA)).toBe(401); // verified (and cached) before: refused once the overlap ends
    expect((await call(as(c), 'GET', '/v1/users', { auth: fromA })).body.error_code).toBe('invalid_token');
    expect(await usersWith(a, fromC)).toBe(200);
    // A node still on the old address accepts its own tokens no longer than the others, issues none, and is not ready.
    expect(await usersWith(a, fromA)).toBe(401);
    const refused = await call(as(a), 'POST', '/v1/users/authorize', {
      body: { username: 'root', password: 'root-password' },
    });
    expect([refused.status, refused.body.error_code]).toEqual([503, 'issuer_moved']);
    expect(refused.body.message).toContain(`restarts it with --public-url ${NEW}`);
    expect((await a.tessera.readiness()).issuerMovedTo).toBe(NEW);
    expect((await c.tessera.readiness()).issuerMovedTo).toBeUndefined();
    await expect(node(where, 9005, OLD, 3601)).rejects.toThrow(
      /issued as https:\/\/tessera\.example\.com, and this node would issue them as https:\/\/auth\.example\.com/,
    );
  });

  it('lets a single node on SQLite move to another address, tokens of the old one accepted for their lifetime', async () => {
    const where = await store('sqlite');
    const first = await node(where, 9001);
    await first.tessera.userCreation.create(
      null,
      { username: 'root', password: 'root-password', role: 'admin' },
      CLI_CONTEXT,
    );
    const old = await token(first);
    await first.close();
    const lines: string[] = [];
    const moved = await node(where, 9002, undefined, 0, pino({}, { write: (line: string) => void lines.push(line) }));
    expect(lines.map((l) => JSON.parse(l)).filter((r) => r.audit)).toEqual([
      expect.objectContaining({
        audit: 'issuer_move',
        target: 'issuer',
        reason: 'from https://127.0.0.1:9001 to https://127.0.0.1:9002 (a start with another address)',
        request_id: 'start',
      }),
    ]);
    expect(moved.tessera.issuer.movedFrom).toEqual({ issuer: 'https://127.0.0.1:9001', until: expect.any(Number) });
    expect(await usersWith(moved, old)).toBe(200);
    moved.advance(86_401);
    expect(await usersWith(moved, await token(moved))).toBe(200);
  });
});
