import { BlockList, isIP } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { FastifyRequest } from 'fastify';
import { fromHeader, fromTlsSocket, type PresentedCertificate } from '../certs/client-certificate.js';
import type { Config } from '../config/config.js';
import { CertificateRefusedError } from '../errors.js';

/** Certificates read from a proxy's header, kept by the header's text: a client sends the same one on every call. */
const HEADER_CERTIFICATES = 1000;

/**
 * Where a request's client certificate comes from: the TLS connection (the server asks for
 * one and does not require it), or — behind a TLS-terminating proxy — the header the proxy
 * sets, believed only from the proxy's own addresses (anyone else could claim any subject).
 * Each is read once: per TLS connection, or per header text, however many requests carry it.
 */
export function certificateSource(config: Config): (request: FastifyRequest) => PresentedCertificate | undefined {
  const header = config.mtls.certHeader?.toLowerCase();
  if (!header) {
    const bySocket = new WeakMap<object, PresentedCertificate | null>();
    return (request) => {
      const socket = request.raw.socket as Partial<TLSSocket>;
      if (typeof socket.getPeerCertificate !== 'function') return undefined;
      let read = bySocket.get(socket);
      if (read === undefined) bySocket.set(socket, (read = fromTlsSocket(socket as TLSSocket) ?? null));
      return read ?? undefined;
    };
  }
  const proxies = new BlockList();
  for (const entry of config.mtls.trustedProxies) {
    const [address, prefix] = entry.split('/');
    const type = isIP(address!) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) proxies.addAddress(address!, type);
    else proxies.addSubnet(address!, Number(prefix), type);
  }
  const byText = new Map<string, PresentedCertificate | undefined>();
  return (request) => {
    const value = request.headers[header];
    if (value === undefined) return undefined;
    const from = (request.raw.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    if (!proxies.check(from, isIP(from) === 6 ? 'ipv6' : 'ipv4')) {
      throw new CertificateRefusedError(
        'certificate_untrusted',
        `The ${header} header is taken only from the trusted proxy (--trusted-proxy)`,
      );
    }
    const text = Array.isArray(value) ? value[0]! : value;
    if (byText.has(text)) return byText.get(text);
    const read = fromHeader(text);
    if (byText.size >= HEADER_CERTIFICATES) byText.delete(byText.keys().next().value!);
    byText.set(text, read);
    return read;
  };
}
