import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import { issueAnySubject, makeCa } from './certificates.js';

/** An HTTPS endpoint of a test's own that records what is posted to it. */
export interface Receiver {
  /** https://127.0.0.1:PORT/hook */
  url: string;
  /** The CA its certificate chains to: a client trusts this one only. */
  caPem: string;
  /** Every request, with the status it was answered. */
  requests: { headers: IncomingHttpHeaders; body: string; status: number }[];
  /** Answers `status` instead of 200 (the request is still recorded), until set back to null. */
  failWith(status: number | null): void;
  waitFor(predicate: () => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 (a free port) with a certificate for IP:127.0.0.1 made under `dir`. */
export async function startWebhookReceiver(dir: string): Promise<Receiver> {
  const ca = makeCa(dir, 'webhook-ca');
  const cert = issueAnySubject(ca, 'webhook', '/CN=127.0.0.1', [
    'basicConstraints = CA:FALSE',
    'extendedKeyUsage = serverAuth',
    'subjectAltName = IP:127.0.0.1, DNS:localhost',
  ]);
  const requests: Receiver['requests'] = [];
  let status: number | null = null;
  const server = https.createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status: status ?? 200 });
      res.writeHead(status ?? 200, { 'content-type': 'text/plain' }).end(status ? 'failing on purpose' : 'ok');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/hook`,
    caPem: ca.pem,
    requests,
    failWith(s) {
      status = s;
    },
    async waitFor(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > deadline)
          throw new Error(`webhook: condition not met in ${timeoutMs} ms; ${requests.length} requests received`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    close() {
      // Keep-alive connections would hold close() open until they time out.
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
