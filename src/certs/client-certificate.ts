import { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { CertificateRefusedError } from '../errors.js';

/** A client certificate as presented: the leaf and whatever chain the client sent with it. */
export interface PresentedCertificate {
  leaf: X509Certificate;
  chain: X509Certificate[];
  /**
   * The SHA-256 fingerprints of the leaf and of the certificates presented with it, read once:
   * what a verified certificate is remembered by. The same leaf presented without the
   * intermediate that made its path is another presentation, checked on its own.
   */
  fingerprint: string;
}

function presented(leaf: X509Certificate, chain: X509Certificate[]): PresentedCertificate {
  return { leaf, chain, fingerprint: [leaf, ...chain].map((c) => c.fingerprint256).join('/') };
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

/** Certificates a client's chain is read to at most. */
const MAX_DEPTH = 8;

/** The certificate of a TLS connection's client, verified by nothing yet; undefined when none was sent. */
export function fromTlsSocket(socket: TLSSocket): PresentedCertificate | undefined {
  const peer = socket.getPeerCertificate(true);
  if (!peer?.raw) return undefined;
  const chain: X509Certificate[] = [];
  let link = peer.issuerCertificate;
  for (let i = 0; link?.raw && i < MAX_DEPTH && link !== link.issuerCertificate; i++) {
    chain.push(new X509Certificate(link.raw));
    link = link.issuerCertificate;
  }
  return presented(new X509Certificate(peer.raw), chain);
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
  if (!leaf)
    throw new CertificateRefusedError(
      'certificate_untrusted',
      'The client certificate header holds no PEM certificate',
    );
  return presented(leaf, chain);
}

/**
 * The PEM certificates in a text (a bundle, a chain), in order; throws on one that cannot be read,
 * and on one that is not in DER's one encoding (OpenSSL reads a non-minimal or indefinite outer
 * length, which no signature covers, where other readers — the console's among them — do not).
 */
export function parsePemCertificates(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => {
    const cert = new X509Certificate(block);
    const der = Buffer.from(block.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, ''), 'base64');
    if (!der.equals(cert.raw)) throw new Error('a certificate not in DER');
    return cert;
  });
}

/**
 * The subject as RFC 2253 writes it, as the product compares `certificate_subject_line`:
 * the most specific attribute first (CN), no space after the commas, special characters
 * escaped (Node's subject is OpenSSL's RFC 2253-escaped text, one attribute a line, root first).
 * '' for a certificate with an empty subject (one that names itself in subjectAltName only).
 */
export function subjectLine(cert: X509Certificate): string {
  return (cert.subject ?? '').split('\n').filter(Boolean).reverse().join(',');
}

/** The cluster's subject check (`mtls_client_cert_subject_validation_type`) on a verified certificate. */
export function subjectAuthorized(
  cert: X509Certificate,
  type: SubjectValidationType,
  subjects: readonly AuthorizedSubject[],
): boolean {
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
  for (const line of (cert.subject ?? '').split('\n')) {
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
