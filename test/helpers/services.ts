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

export interface FaultProxy {
  url: string;
  /** Refuses: closes every connection and accepts no new one. */
  cut(): Promise<void>;
  /** Partitions: accepts connections but answers nothing, on old and new ones alike. */
  partition(): void;
  /** Heals either fault: accepts again, and delivers what a partition held back. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** One client connection through the proxy and what a partition holds back on it. */
interface Link {
  client: net.Socket;
  up?: net.Socket;
  toUp: Buffer[];
  toClient: Buffer[];
}

/**
 * A TCP proxy in front of a real service, to take it away and bring it back without
 * touching the service itself. A partition delays bytes rather than losing them, as a
 * network that drops packets for a while does to TCP.
 */
export async function proxyTo(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  const links = new Set<Link>();
  let mode: 'open' | 'partitioned' | 'cut' = 'open';
  let server: net.Server | undefined;
  let port = 0;

  const flush = (link: Link) => {
    if (link.up) for (const d of link.toUp.splice(0)) link.up.write(d);
    for (const d of link.toClient.splice(0)) link.client.write(d);
  };
  const connectUp = (link: Link) => {
    const up = net.connect(Number(upstream.port), upstream.hostname);
    link.up = up;
    up.on('error', () => {});
    up.on('data', (d) => (mode === 'open' ? link.client.write(d) : link.toClient.push(d)));
    up.on('close', () => link.client.destroy());
    up.on('connect', () => mode === 'open' && flush(link));
  };
  const listen = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const link: Link = { client, toUp: [], toClient: [] };
        links.add(link);
        client.on('error', () => {});
        client.on('data', (d) =>
          mode === 'open' && link.up?.readyState === 'open' ? link.up.write(d) : link.toUp.push(d),
        );
        client.on('close', () => {
          link.up?.destroy();
          links.delete(link);
        });
        if (mode === 'open') connectUp(link);
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as net.AddressInfo).port;
        resolve();
      });
    });
  const cut = () =>
    new Promise<void>((resolve) => {
      mode = 'cut';
      if (!server?.listening) return resolve();
      server.close(() => resolve());
      for (const link of links) link.client.destroy();
    });
  await listen();
  const url = new URL(target);
  url.port = String(port);
  return {
    url: url.toString(),
    cut,
    partition: () => {
      mode = 'partitioned';
    },
    restore: async () => {
      if (mode === 'cut') await listen();
      mode = 'open';
      for (const link of links) {
        if (!link.up) connectUp(link);
        else flush(link);
      }
    },
    close: cut,
  };
}
