import { BlockList, isIP } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { FastifyRequest } from 'fastify';
import { fromHeader, fromTlsSocket, type PresentedCertificate } from '../certs/client-certificate.js';
import type { Config } from '../config/config.js';
import { CertificateRefusedError } from '../errors.js';

/**
 * Where a request's client certificate comes from: the TLS connection (the server asks for
 * one and does not require it), or — behind a TLS-terminating proxy — the header the proxy
 * sets, believed only from the proxy's own addresses (anyone else could claim any subject).
 */
export function certificateSource(config: Config): (request: FastifyRequest) => PresentedCertificate | undefined {
  const header = config.mtls.certHeader?.toLowerCase();
  if (!header) {
    return (request) => {
      const socket = request.raw.socket as Partial<TLSSocket>;
      return typeof socket.getPeerCertificate === 'function' ? fromTlsSocket(socket as TLSSocket) : undefined;
    };
  }
  const proxies = new BlockList();
  for (const entry of config.mtls.trustedProxies) {
    const [address, prefix] = entry.split('/');
    const type = isIP(address!) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) proxies.addAddress(address!, type);
    else proxies.addSubnet(address!, Number(prefix), type);
  }
  return (request) => {
    const value = request.headers[header];
    if (value === undefined) return undefined;
    const from = (request.raw.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    if (!proxies.check(from, isIP(from) === 6 ? 'ipv6' : 'ipv4')) {
      throw new CertificateRefusedError('certificate_untrusted', `The ${header} header is taken only from the trusted proxy (--trusted-proxy)`);
    }
    return fromHeader(Array.isArray(value) ? value[0]! : value);
  };
}
