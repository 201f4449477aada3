import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeConfig } from '../../src/config/config.js';
import { openTessera, type Tessera } from '../../src/tessera.js';
import { freshPostgres } from '../helpers/services.js';
import { FAST_ARGON2 } from '../helpers/test-tessera.js';

const opened: Tessera[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const t of opened.splice(0)) await t.close();
  for (const c of cleanups.splice(0)) await c();
});

async function store(dialect: 'sqlite' | 'postgres') {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-issuer-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  if (dialect === 'sqlite') return { dataDir };
  const pg = await freshPostgres();
  cleanups.push(() => pg.drop());
  return { dataDir, databaseUrl: pg.url };
}

/** A node of the store, reached at this port unless told its public URL. */
async function node(where: { dataDir: string; databaseUrl?: string }, port: number, publicUrl?: string) {
  const t = await openTessera(makeConfig({ ...where, argon2: FAST_ARGON2, listen: { host: '127.0.0.1', port }, ...(publicUrl && { publicUrl }) }));
  opened.push(t);
  return t;
}

describe('one issuer per store', () => {
  it('refuses to start a node on a shared store whose issuer, taken from its own address, differs: one line naming both and the fix', async () => {
    const where = await store('postgres');
    await node(where, 9001);
    const refused = node(where, 9002);
    await expect(refused).rejects.toThrow(
      /^this store's tokens are issued as https:\/\/127\.0\.0\.1:9001, and this node would issue them as https:\/\/127\.0\.0\.1:9002 .* --public-url https:\/\/127\.0\.0\.1:9001 \(TESSERA_PUBLIC_URL\)/,
    );
    expect((await node(where, 9001)).issuerChangedFrom).toBeUndefined(); // the same address again: no change
  });

  it('lets nodes given one --public-url share a store, and a new --public-url move it, saying so', async () => {
    const where = await store('postgres');
    await node(where, 9001, 'https://auth.example.com');
    expect((await node(where, 9002, 'https://auth.example.com')).issuerChangedFrom).toBeUndefined();
    const moved = await node(where, 9003, 'https://tessera.example.com');
    expect(moved.issuerChangedFrom).toBe('https://auth.example.com');
    await expect(node(where, 9004)).rejects.toThrow(/issued as https:\/\/tessera\.example\.com/);
  });

  it('lets a single node on SQLite move to another address, saying so', async () => {
    const where = await store('sqlite');
    expect((await node(where, 9001)).issuerChangedFrom).toBeUndefined();
    await opened.pop()!.close();
    expect((await node(where, 9002)).issuerChangedFrom).toBe('https://127.0.0.1:9001');
  });
});
