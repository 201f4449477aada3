import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from './metrics.js';

/** The metrics listener could not start; the message names the setting to change. */
export class MetricsListenError extends Error {}

/**
 * GET /metrics in the Prometheus text format, on a listener of its own (as Keycloak's
 * management port), so that it is never exposed with the API by accident.
 */
export async function listenMetrics(metrics: Metrics, at: { host: string; port: number }): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'application/json; charset=utf-8' }).end(
        JSON.stringify({ error_code: 'not_found', message: 'This listener serves GET /metrics only' }),
      );
      return;
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
