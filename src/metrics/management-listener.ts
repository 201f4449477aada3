import { Worker } from 'node:worker_threads';
import { DomainError, RetryLaterError } from '../errors.js';
import { type Readiness, readyState } from '../probes/readiness.js';
import type { Metrics } from './metrics.js';

/** The metrics listener could not start; the message names the setting to change. */
export class ManagementListenError extends Error {
  constructor(
    at: { host: string; port: number },
    readonly code: string | undefined,
  ) {
    super(
      `cannot serve metrics on ${at.host}:${at.port} (${code}): choose another address with --metrics-listen HOST:PORT (TESSERA_METRICS_LISTEN), or off`,
    );
  }
}

export interface Probes {
  started: () => boolean;
  readiness: Readiness;
}

/** An answer of the listener: its status, JSON body and headers. */
export interface ListenerAnswer {
  status: number;
  body: object;
  headers?: Record<string, string>;
}

/**
 * Whether a scrape of GET /metrics may have the metrics: undefined lets it; else the answer
 * that refuses it (401, 403, …). Asked on the main thread, which has the store and the callers
 * (http/scrape-access.ts: the cluster's metrics_auth). The probes never ask it.
 */
export type ScrapeGate = (
  authorization: string | undefined,
  client: { ip: string; userAgent?: string },
) => Promise<ListenerAnswer | undefined>;

/** What the listener answers from: the probes' facts, and who may scrape. */
export interface ListenerParts extends Probes {
  scrapes: ScrapeGate;
}

/** How often the main thread tells the listener its readiness (which is also its heartbeat). */
const READINESS_EVERY_MS = 500;
/** The main thread is taken for dead when it has said nothing for this long. */
const LIVENESS_MS = 10_000;

type Answer = ListenerAnswer;

type FromListener =
  | { type: 'listening'; address: string; port: number }
  | { type: 'failed'; code: string }
  | { type: 'metrics'; id: number; authorization?: string; ip: string; userAgent?: string };

/**
 * The management listener (as Keycloak's management port): GET /metrics in the Prometheus
 * text format and the probes GET /healthz and GET /readyz, apart from the API so that it is
 * never exposed with the API by accident. It runs on a thread of its own: a login flood
 * keeps the main event loop busy, and a probe must not wait behind it (a liveness probe's
 * usual timeout is 1 s). The main thread tells it its readiness twice a second — that is
 * also its heartbeat: /healthz fails when the main thread has said nothing for 10 s — and
 * answers its requests for the metrics, once `parts.scrapes` lets the scraper have them.
 */
export async function listenManagement(
  metrics: Metrics,
  at: { host: string; port: number },
  parts: ListenerParts,
  livenessMs = LIVENESS_MS,
): Promise<{ url: string; close(): Promise<void> }> {
  // A thread costs ~7 MB of RSS (its isolate); a smaller heap limit did not change that.
  const worker = new Worker(`(${managementListener.toString()})()`, { eval: true, workerData: { ...at, livenessMs } });
  const tell = () =>
    void readyState(parts.started(), parts.readiness)
      .then(
        (ready): Answer => ({ status: 200, body: ready }),
        (err: unknown): Answer => {
          const known = err instanceof DomainError ? err : undefined;
          const retry =
            err instanceof RetryLaterError && err.retryAfterSeconds !== undefined
              ? { 'retry-after': String(err.retryAfterSeconds) }
              : undefined;
          return {
            status: 503,
            body: { error_code: known?.code ?? 'not_ready', message: known?.message ?? 'Not ready' },
            headers: retry,
          };
        },
      )
      .then((answer) => worker.postMessage({ type: 'ready', answer }));
  worker.on('message', (message: FromListener) => {
    if (message.type !== 'metrics') return;
    const { id, authorization, ip, userAgent } = message;
    const client = { ip, ...(userAgent !== undefined && { userAgent }) };
    parts
      .scrapes(authorization, client)
      .then(async (refusal) => {
        if (refusal) return worker.postMessage({ type: 'metrics', id, refusal });
        const text = await metrics.exposition();
        worker.postMessage({ type: 'metrics', id, text, contentType: metrics.registry.contentType });
      })
      .catch(() => worker.postMessage({ type: 'metrics', id }));
  });
  const bound = await new Promise<{ address: string; port: number }>((resolve, reject) => {
    worker.once('error', reject);
    worker.on('message', (message: FromListener) => {
      if (message.type === 'listening') resolve(message);
      if (message.type === 'failed') {
        reject(new ManagementListenError(at, message.code));
      }
    });
  }).catch(async (err: unknown) => {
    await worker.terminate();
    throw err;
  });
  // Should the thread fail later, its probes stop answering (an orchestrator then sees the
  // node as down); the API goes on, and the event must not end the process.
  worker.on('error', () => clearInterval(timer));
  tell();
  const timer = setInterval(tell, READINESS_EVERY_MS).unref();
  worker.unref();
  const host = bound.address.includes(':') ? `[${bound.address}]` : bound.address;
  return {
    url: `http://${host}:${bound.port}/metrics`,
    close: async () => {
      clearInterval(timer);
      await worker.terminate();
    },
  };
}

/**
 * The listener's thread. Its source becomes the worker's code, so it imports nothing: Node's
 * own modules come from process.getBuiltinModule, and what it knows comes in messages.
 */
function managementListener(): void {
  const { createServer } = process.getBuiltinModule('node:http');
  const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads');
  const { host, port, livenessMs } = workerData as { host: string; port: number; livenessMs: number };
  let ready: Answer = {
    status: 503,
    body: { error_code: 'starting', message: 'Tessera is starting; try again in a second' },
    headers: { 'retry-after': '1' },
  };
  let heardAt = Date.now();
  type Reply = { text?: string; contentType?: string; refusal?: Answer };
  const waiting = new Map<number, (reply: Reply) => void>();
  let nextId = 0;
  parentPort!.on(
    'message',
    (message: { type: 'ready'; answer: Answer } | ({ type: 'metrics'; id: number } & Reply)) => {
      heardAt = Date.now();
      if (message.type === 'ready') ready = message.answer;
      else {
        waiting.get(message.id)?.(message);
        waiting.delete(message.id);
      }
    },
  );
  const json = (response: import('node:http').ServerResponse, { status, body, headers }: Answer) =>
    response
      .writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers })
      .end(JSON.stringify(body));
  const server = createServer((request, response) => {
    const path = request.url?.split('?')[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return json(response, {
        status: 405,
        body: { error_code: 'method_not_allowed', message: 'This listener takes GET only' },
        headers: { allow: 'GET, HEAD' },
      });
    }
    if (path === '/healthz') {
      const alive = Date.now() - heardAt < livenessMs;
      return json(
        response,
        alive
          ? { status: 200, body: { status: 'ok' } }
          : {
              status: 503,
              body: {
                error_code: 'unresponsive',
                message: `The server has not answered its listener for ${Math.round((Date.now() - heardAt) / 1000)} s`,
              },
            },
      );
    }
    if (path === '/readyz') return json(response, ready);
    if (path !== '/metrics') {
      return json(response, {
        status: 404,
        body: { error_code: 'not_found', message: 'This listener serves GET /metrics, /healthz and /readyz' },
      });
    }
    const id = nextId++;
    waiting.set(id, ({ text, contentType, refusal }) => {
      if (refusal) return json(response, refusal);
      if (text === undefined) return response.writeHead(500).end();
      response.writeHead(200, { 'content-type': contentType! }).end(text);
    });
    // Whether this scraper may have the metrics is the main thread's to say (the cluster's metrics_auth).
    const agent = request.headers['user-agent'];
    const remote = request.socket.remoteAddress ?? '';
    parentPort!.postMessage({
      type: 'metrics',
      id,
      authorization: request.headers.authorization,
      ip: /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(remote) ? remote.slice(7) : remote,
      ...(agent !== undefined && { userAgent: agent.slice(0, 256) }),
    });
  });
  server.once('error', (err: NodeJS.ErrnoException) =>
    parentPort!.postMessage({ type: 'failed', code: err.code ?? String(err) }),
  );
  server.listen(port, host, () => {
    const address = server.address() as import('node:net').AddressInfo;
    parentPort!.postMessage({ type: 'listening', address: address.address, port: address.port });
  });
}
