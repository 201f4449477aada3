import { createServer, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DomainError, RetryLaterError } from '../errors.js';
import { type Readiness, readyState } from '../probes/readiness.js';
import type { Metrics } from './metrics.js';

/** The metrics listener could not start; the message names the setting to change. */
export class MetricsListenError extends Error {}

export interface Probes {
  started: () => boolean;
  readiness: Readiness;
}

function json(response: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers }).end(JSON.stringify(body));
}

/**
 * The management listener (as Keycloak's management port): GET /metrics in the Prometheus
 * text format, and the probes GET /healthz and GET /readyz — apart from the API, so that it
 * is never exposed with the API by accident, and a probe never queues behind API connections
 * (a login flood fills the API port's accept queue, not this one).
 */
export async function listenMetrics(metrics: Metrics, at: { host: string; port: number }, probes: Probes): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const path = request.url?.split('?')[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return json(response, 405, { error_code: 'method_not_allowed', message: 'This listener takes GET only' }, { allow: 'GET, HEAD' });
    }
    if (path === '/healthz') return json(response, 200, { status: 'ok' });
    if (path === '/readyz') {
      return void readyState(probes.started(), probes.readiness).then(
        (ready) => json(response, 200, ready),
        (err: unknown) => {
          const known = err instanceof DomainError ? err : undefined;
          const retry = err instanceof RetryLaterError && err.retryAfterSeconds !== undefined ? { 'retry-after': String(err.retryAfterSeconds) } : undefined;
          json(response, 503, { error_code: known?.code ?? 'not_ready', message: known?.message ?? 'Not ready' }, retry);
        },
      );
    }
    if (path !== '/metrics') {
      return json(response, 404, { error_code: 'not_found', message: 'This listener serves GET /metrics, /healthz and /readyz' });
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new MetricsListenError(
          `cannot serve metrics on ${at.host}:${at.port} (${err.code}): choose another address with --metrics-listen HOST:PORT (TESSERA_METRICS_LISTEN), or off`,
        ),
      ),
    );
    server.listen(at.port, at.host, resolve);
  });
  const { address, port } = server.address() as AddressInfo;
  return { server, url: `http://${address.includes(':') ? `[${address}]` : address}:${port}/metrics` };
}
