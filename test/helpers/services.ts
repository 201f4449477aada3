import { randomBytes } from 'node:crypto';
import net from 'node:net';
import pg from 'pg';

/** The machine's PostgreSQL and Redis; CI sets these or uses the same defaults. */
export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A schema of its own in the test database, so that test files running side by side do
 * not see each other's tables. Returns a URL whose connections use it.
 */
export async function freshPostgres(): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `tessera_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const url = new URL(DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: DATABASE_URL });
      await c.connect();
      await c.query(`drop schema ${schema} cascade`);
      await c.end();
    },
  };
}

/** A Redis key prefix of its own. */
export function freshRedisPrefix(): string {
  return `tessera-test:${randomBytes(6).toString('hex')}:`;
}

/**
 * A TCP proxy in front of a real service, to take it away and bring it back: `cut()`
 * closes every connection and refuses new ones, `restore()` accepts again.
 */
export async function proxyTo(target: string): Promise<{ url: string; cut(): Promise<void>; restore(): Promise<void>; close(): Promise<void> }> {
  const upstream = new URL(target);
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const up = net.connect(Number(upstream.port), upstream.hostname);
        for (const s of [client, up]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => {});
        }
        client.pipe(up).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as net.AddressInfo).port;
        resolve();
      });
    });
  const cut = () =>
    new Promise<void>((resolve) => {
      server!.close(() => resolve());
      for (const s of sockets) s.destroy();
    });
  await listen();
  const url = new URL(target);
  url.port = String(port);
  return { url: url.toString(), cut, restore: listen, close: cut };
}
