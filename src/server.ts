import { type AddressInfo, connect, createServer } from 'node:net';
import type { Server as TlsServer } from 'node:tls';
import { type Logger, pino } from 'pino';
import { buildApp, type TesseraApp } from './app.js';
import { certificatesOnly } from './certs/keyed-certificate.js';
import { type Config, issuerOf, makeConfig } from './config/config.js';
import { answerPlainHttpOnTls } from './http/plain-http-on-tls.js';
import { scrapeGate } from './http/scrape-access.js';
import { listenManagement, ManagementListenError } from './metrics/management-listener.js';
import { lockDataDir } from './store/data-dir-lock.js';
import { openTessera, type Tessera } from './tessera.js';
import { readTlsFiles, selfSignedTls, type TlsFiles } from './tls/certificate.js';
import { LiveTls } from './tls/live-tls.js';
import { settledNotice } from './tokens/store-issuer.js';
import { ensureFirstAdmin, type FirstAdminResult } from './users/first-admin.js';
import { KyselyUnshownPasswordMark } from './users/unshown-password-mark.js';

export interface RunningServer {
  app: TesseraApp;
  tessera: Tessera;
  url: string;
  firstAdmin: FirstAdminResult;
  tls: TlsFiles | null;
  /** Where GET /metrics answers; undefined with --metrics-listen off. */
  metricsUrl?: string;
  close(): Promise<void>;
}

/** Secrets that must never reach a log line, whatever a serializer is asked to print. */
const REDACT = ['req.headers.authorization', 'req.headers.cookie', 'req.body', 'password'];

/**
 * Loads or makes the TLS certificate, opens the store, listens, and then makes the first
 * admin on an empty store. Closing drains in-flight requests, then closes the store.
 */
export async function startServer(
  given: Config,
  firstAdmin: { username?: string; password?: string } = {},
): Promise<RunningServer> {
  const { config, releaseChosen } = await checkPorts(given);
  // One server a SQLite data directory (PostgreSQL is shared by design); held until it closes.
  let dirLock: ReturnType<typeof lockDataDir> | undefined;
  try {
    dirLock = config.databaseUrl ? undefined : lockDataDir(config.dataDir);
    const server = await start(config, firstAdmin, releaseChosen);
    return { ...server, close: () => server.close().finally(() => dirLock?.release()) };
  } catch (err) {
    await releaseChosen();
    dirLock?.release();
    throw err;
  }
}

async function start(
  config: Config,
  firstAdmin: { username?: string; password?: string },
  releaseChosen: () => Promise<void>,
): Promise<RunningServer> {
  const logger = pino({ level: config.logLevel, redact: { paths: REDACT, censor: '[redacted]' } });
  // The TLS files are read and the port bound before the first admin is made: a start that
  // fails on either must not make an admin whose generated password nobody saw.
  const tls = !config.tls.enabled
    ? null
    : config.tls.certFile && config.tls.keyFile
      ? readTlsFiles(config.tls.certFile, config.tls.keyFile)
      : await selfSignedTls(config.dataDir);
  const tessera = await openTessera(config, {
    logger,
    // Its certificates alone (a combined file's key never goes with them into GET /v1/cluster/certificates).
    ...(tls && {
      listenerCertificate: { certificate: certificatesOnly(tls.cert.toString('utf8')), selfMade: !config.tls.certFile },
    }),
  });
  const issuerNotice = settledNotice(tessera.issuer, issuerOf(config));
  if (issuerNotice) logger.warn(issuerNotice);
  // The store is open and migrated; the first admin is made after the port is bound.
  let started = false;
  let liveTls: LiveTls | undefined;
  try {
    const app = buildApp(tessera, {
      loggerInstance: logger,
      https: tls && { key: tls.key, cert: tls.cert },
      started: () => started,
    });
    if (tls) answerPlainHttpOnTls(app.server);
    liveTls = tls ? await followClusterTls(app, tessera, tls, !config.tls.certFile, logger) : undefined;
    const management = config.metricsListen
      ? await listenManagement(tessera.metrics, config.metricsListen, {
          started: () => started,
          readiness: tessera.readiness,
          scrapes: scrapeGate({
            callers: tessera.callers,
            policy: tessera.policy,
            metrics: tessera.metrics,
            onFault: (err) => logger.error({ err }, 'a scrape failed'),
          }),
        })
      : undefined;
    await releaseChosen();
    await app.listen({ host: config.listen.host, port: config.listen.port }).catch(async (err: unknown) => {
      liveTls?.stop();
      await management?.close();
      throw err;
    });
    const mark = new KyselyUnshownPasswordMark(tessera.db);
    const closeListeners = async () => {
      liveTls?.stop();
      await management?.close();
      await app.close();
    };
    const admin = await ensureFirstAdmin(tessera.users, tessera.userCreation, mark, firstAdmin).catch(
      async (err: unknown) => {
        await closeListeners();
        throw err;
      },
    );
    started = true;
    const { address, port } = app.server.address() as AddressInfo;
    const host = address.includes(':') ? `[${address}]` : address;
    let closing: Promise<void> | undefined;
    return {
      app,
      tessera,
      url: `${tls ? 'https' : 'http'}://${host}:${port}`,
      firstAdmin: admin,
      tls,
      metricsUrl: management?.url,
      close: () => (closing ??= closeListeners().then(() => tessera.close())),
    };
  } catch (err) {
    liveTls?.stop();
    await tessera.close();
    throw err;
  }
}

/**
 * The API listener serves the cluster's certificate (`api`, PUT /v1/cluster/certificates) when
 * one is stored, else what it started with (--tls-cert, or the first start's self-signed one),
 * with the cluster's min_control_TLS_version: applied before the first connection, at once
 * after a change made here, and within a second or two after one made on another node.
 */
async function followClusterTls(
  app: TesseraApp,
  tessera: Tessera,
  started: TlsFiles,
  /** Started with the first start's self-signed certificate (not an operator's --tls-cert). */
  selfMade: boolean,
  logger: Pick<Logger, 'error'>,
): Promise<LiveTls> {
  const live = new LiveTls(
    app.server as unknown as TlsServer,
    async () => {
      const policy = await tessera.policy.get();
      const ciphers = policy.kept_cluster.control_cipher_suites;
      const stored = await tessera.apiCertificate.serving();
      // An operator's own certificate (--tls-cert) gives way to one an admin gave, not to one Tessera made (a rotation asked of a self-signed node).
      const use = stored && (stored.origin === 'given' || selfMade) ? stored : undefined;
      return {
        cert: use?.certificate ?? started.cert,
        key: use?.key ?? started.key,
        minVersion: policy.min_control_TLS_version,
        ...(typeof ciphers === 'string' && { ciphers }),
        fallback: { cert: started.cert, key: started.key },
      };
    },
    // What went wrong, never the key: the store's settings could not be read or opened, or TLS refused them.
    (err) =>
      logger.error({ err: String(err) }, "the API listener keeps its certificate: the cluster's could not be applied"),
  );
  await live.apply();
  live.start();
  tessera.events.on('listenerTlsChanged', () => void live.apply());
  return live;
}

/**
 * The ports, looked at before anything is written, so that a start that cannot listen (most
 * often: another Tessera on them) leaves no store, certificate or issuer behind for the next one,
 * which would then not be a first start. A port given by number is only tried with a connection
 * (something answers there: in use), never bound for a check: a client that calls while the
 * server starts must see the port refused or served, not a connection reset. Port 0 (any free
 * port) for the API without --public-url is chosen here, before the store opens, so that the
 * tokens' issuer and the discovery document name the port the server has; it is held until the
 * server binds it (`releaseChosen`), so that nothing else on the machine is given it meanwhile.
 */
async function checkPorts(config: Config): Promise<{ config: Config; releaseChosen: () => Promise<void> }> {
  const metrics = config.metricsListen;
  if (config.listen.port !== 0 && (await answers(config.listen)))
    throw Object.assign(new Error(`${config.listen.host}:${config.listen.port} is in use`), {
      code: 'EADDRINUSE',
      syscall: 'listen',
    });
  if (metrics && metrics.port !== 0 && (await answers(metrics))) throw new ManagementListenError(metrics, 'EADDRINUSE');
  if (config.listen.port !== 0 || config.publicUrl) return { config, releaseChosen: async () => {} };
  const chosen = await hold(config.listen);
  return {
    config: makeConfig({ ...config, listen: { ...config.listen, port: chosen.port } }),
    releaseChosen: chosen.release,
  };
}

/** Whether something accepts a connection at the address (a wildcard one is tried on loopback). */
function answers(at: { host: string; port: number }): Promise<boolean> {
  const host = at.host === '0.0.0.0' ? '127.0.0.1' : at.host === '::' ? '::1' : at.host;
  return new Promise((resolve) => {
    const socket = connect({ host, port: at.port });
    const done = (inUse: boolean) => {
      socket.destroy();
      resolve(inUse);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Listens on the address with a server that turns every connection away, until released. */
async function hold(at: { host: string; port: number }): Promise<{ port: number; release(): Promise<void> }> {
  const holder = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => holder.once('error', reject).listen(at.port, at.host, resolve));
  let released: Promise<void> | undefined;
  return {
    port: (holder.address() as AddressInfo).port,
    release: () => (released ??= new Promise<void>((resolve) => holder.close(() => resolve()))),
  };
}
