import { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { CertificateRefusedError } from '../errors.js';

/** A client certificate as presented: the leaf and whatever chain the client sent with it. */
export interface PresentedCertificate {
  leaf: X509Certificate;
  chain: X509Certificate[];
}

/** One entry of the cluster's `mtls_authorized_subjects`. */
export interface AuthorizedSubject {
  CN?: string;
  OU?: string[];
  O?: string;
  C?: string;
  L?: string;
  ST?: string;
}

/** The cluster's `mtls_client_cert_subject_validation_type` (its schema: policy/policy.ts). */
export type SubjectValidationType = 'disabled' | 'san_cn' | 'full_subject';

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ANY_EKU = '2.5.29.37.0';
const MAX_DEPTH = 8;

/** The certificate of a TLS connection's client, verified by nothing yet; undefined when none was sent. */
export function fromTlsSocket(socket: TLSSocket): PresentedCertificate | undefined {
  const peer = socket.getPeerCertificate(true);
  if (!peer || !peer.raw) return undefined;
  const chain: X509Certificate[] = [];
  let link = peer.issuerCertificate;
  for (let i = 0; link && link.raw && i < MAX_DEPTH && link !== link.issuerCertificate; i++) {
    chain.push(new X509Certificate(link.raw));
    link = link.issuerCertificate;
  }
  return { leaf: new X509Certificate(peer.raw), chain };
}

/**
 * A certificate a TLS-terminating proxy passed on in a header: PEM, URL-encoded as nginx's
 * `$ssl_client_escaped_cert` is (or not). Undefined when it is empty; refused when unreadable.
 */
export function fromHeader(value: string): PresentedCertificate | undefined {
  let text = value.trim();
  if (text === '' || text === '(null)') return undefined;
  if (text.includes('%')) {
    try {
      text = decodeURIComponent(text);
    } catch {
      throw new CertificateRefusedError('certificate_untrusted', 'The client certificate header cannot be read');
    }
  }
  let certs: X509Certificate[];
  try {
    certs = parsePemCertificates(text);
  } catch {
    throw new CertificateRefusedError('certificate_untrusted', 'The client certificate cannot be read');
  }
  const [leaf, ...chain] = certs;
  if (!leaf) throw new CertificateRefusedError('certificate_untrusted', 'The client certificate header holds no PEM certificate');
  return { leaf, chain };
}

/** The PEM certificates in a text (a bundle, a chain), in order; throws on one that cannot be read. */
export function parsePemCertificates(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((b) => new X509Certificate(b));
}

/**
 * The subject as RFC 2253 writes it, as the product compares `certificate_subject_line`:
 * the most specific attribute first (CN), no space after the commas, special characters
 * escaped (Node's subject is OpenSSL's RFC 2253-escaped text, one attribute a line, root first).
 */
export function subjectLine(cert: X509Certificate): string {
  return cert.subject.split('\n').filter(Boolean).reverse().join(',');
}

/**
 * Verifies a presented certificate against the trusted CAs at `now`: within its validity,
 * for client authentication (when it says what it is for), and signed — through the chain
 * the client sent, if any — by one of them, each link within its own validity. Throws
 * CertificateRefusedError with the reason's own code.
 */
export function verifyCertificate(presented: PresentedCertificate, trusted: readonly X509Certificate[], now: Date): void {
  const { leaf } = presented;
  if (now < new Date(leaf.validFrom)) throw new CertificateRefusedError('certificate_not_yet_valid', `The client certificate is valid from ${new Date(leaf.validFrom).toISOString()}`);
  if (now > new Date(leaf.validTo)) throw new CertificateRefusedError('certificate_expired', `The client certificate expired at ${new Date(leaf.validTo).toISOString()}`);
  const usages = leaf.keyUsage;
  if (usages && usages.length > 0 && !usages.includes(CLIENT_AUTH) && !usages.includes(ANY_EKU)) {
    throw new CertificateRefusedError('certificate_untrusted', 'The client certificate is not for client authentication (extended key usage)');
  }
  if (trusted.length === 0) throw new CertificateRefusedError('certificate_untrusted', 'No CA is trusted for client certificates (PUT /v1/cluster/certificates, mtls_trusted_ca)');
  const signs = (issuer: X509Certificate, cert: X509Certificate) => {
    try {
      return cert.checkIssued(issuer) && cert.verify(issuer.publicKey); // "cert was issued by issuer"
    } catch {
      return false;
    }
  };
  const valid = (c: X509Certificate) => now >= new Date(c.validFrom) && now <= new Date(c.validTo);
  let current = leaf;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const anchor = trusted.find((ca) => signs(ca, current));
    if (anchor) {
      if (!valid(anchor)) throw new CertificateRefusedError('certificate_untrusted', 'The CA that signed the client certificate is not within its validity');
      return;
    }
    const next = presented.chain.find((c) => c !== current && c.ca && signs(c, current));
    if (!next || !valid(next)) break;
    current = next;
  }
  throw new CertificateRefusedError('certificate_untrusted', 'The client certificate is not signed by a trusted CA');
}

/** The cluster's subject check (`mtls_client_cert_subject_validation_type`) on a verified certificate. */
export function subjectAuthorized(cert: X509Certificate, type: SubjectValidationType, subjects: readonly AuthorizedSubject[]): boolean {
  if (type === 'disabled') return true;
  const fields = subjectFields(cert);
  if (type === 'san_cn') {
    const names = new Set([...(fields.get('CN') ?? []), ...sanDnsNames(cert)]);
    return subjects.some((s) => s.CN !== undefined && names.has(s.CN));
  }
  const one = (key: string) => fields.get(key)?.[0];
  return subjects.some(
    (s) =>
      (['CN', 'O', 'C', 'L', 'ST'] as const).every((k) => s[k] === undefined || s[k] === one(k)) &&
      (s.OU === undefined || sameSet(s.OU, fields.get('OU') ?? [])),
  );
}

function subjectFields(cert: X509Certificate): Map<string, string[]> {
  const fields = new Map<string, string[]>();
  for (const line of cert.subject.split('\n')) {
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const key = line.slice(0, eq);
    fields.set(key, [...(fields.get(key) ?? []), line.slice(eq + 1)]);
  }
  return fields;
}

function sanDnsNames(cert: X509Certificate): string[] {
  return (cert.subjectAltName ?? '')
    .split(', ')
    .filter((e) => e.startsWith('DNS:'))
    .map((e) => e.slice(4));
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}
