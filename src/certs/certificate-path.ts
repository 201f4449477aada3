import 'reflect-metadata'; // @peculiar/x509's dependency injection asks for it before it loads
import type { X509Certificate as NodeCertificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { CertificateRefusedError } from '../errors.js';
import type { PresentedCertificate } from './client-certificate.js';

x509.cryptoProvider.set(globalThis.crypto);

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ANY_EKU = '2.5.29.37.0';
/** The extensions whose meaning is checked here (or that carry nothing to check); an unknown critical one refuses the path, as RFC 5280 asks. */
const UNDERSTOOD = new Set(['2.5.29.19', '2.5.29.15', '2.5.29.37', '2.5.29.17', '2.5.29.14', '2.5.29.35', '2.5.29.32']);
/** Name constraints: not checked here, so a CA that has them (critical or not) is not trusted to be within them. */
const NAME_CONSTRAINTS = '2.5.29.30';

const untrusted = (why: string) => new CertificateRefusedError('certificate_untrusted', why);

/**
 * Every value of a subject attribute of a certificate, by its dotted OID (any OID: one Node
 * prints by number or by name alike), and whether the subject has a multi-valued RDN
 * (`CN=a+CN=b`: then no attribute of it reads as naming one thing).
 */
export function subjectAttribute(leaf: NodeCertificate, oid: string): { values: string[]; multiValuedRdn: boolean } {
  const values = new x509.X509Certificate(leaf.raw).subjectName.getField(oid);
  // Node prints a multi-valued RDN on one line, its parts joined by " + " (a "+" in a value is escaped).
  const multiValuedRdn = (leaf.subject ?? '').split('\n').some((line) => line.includes(' + '));
  return { values, multiValuedRdn };
}

/**
 * The path from a client certificate to one of the trusted CAs, checked as a client
 * certificate's path must be (RFC 5280 §6.1, as OpenSSL checks one for TLS client
 * authentication): the path built by @peculiar/x509's chain builder from the trusted CAs and
 * what the client sent (names and key identifiers matched, each signature verified); every
 * certificate on it within its validity; the leaf not a CA and made for client
 * authentication; every issuer a CA (basicConstraints) that may sign certificates (keyUsage)
 * with no more CAs below it than its path length allows; no critical extension unknown.
 * Returns when the path stops being valid; throws CertificateRefusedError with the reason.
 */
export async function verifyPath(
  presented: PresentedCertificate,
  trusted: readonly NodeCertificate[],
  now: Date,
): Promise<{ validUntil: Date }> {
  const { leaf } = presented;
  if (now < new Date(leaf.validFrom))
    throw new CertificateRefusedError(
      'certificate_not_yet_valid',
      `The client certificate is valid from ${new Date(leaf.validFrom).toISOString()}`,
    );
  if (now > new Date(leaf.validTo))
    throw new CertificateRefusedError(
      'certificate_expired',
      `The client certificate expired at ${new Date(leaf.validTo).toISOString()}`,
    );
  if (trusted.length === 0)
    throw untrusted('No CA is trusted for client certificates (PUT /v1/cluster/certificates, mtls_trusted_ca)');
  const parse = (c: NodeCertificate) => new x509.X509Certificate(new Uint8Array(c.raw));
  const end = parse(leaf);
  checkLeaf(end);
  const anchors = trusted.map(parse);
  const chain = await new x509.X509ChainBuilder({ certificates: [...anchors, ...presented.chain.map(parse)] })
    .build(end)
    .catch(() => {
      throw untrusted("The client certificate's chain cannot be built (it loops)");
    });
  const at = chain.findIndex((c, i) => i > 0 && anchors.some((a) => equal(a, c)));
  if (at < 0) throw untrusted('The client certificate is not signed by a trusted CA');
  const path = chain.slice(0, at + 1);
  for (const [i, issuer] of path.entries()) {
    if (i === 0) continue;
    const name = issuer.subject || 'a CA';
    if (now < issuer.notBefore || now > issuer.notAfter)
      throw untrusted(`${name}, on the client certificate's path, is not within its validity`);
    const constraints = issuer.getExtension(x509.BasicConstraintsExtension);
    if (!constraints?.ca) throw untrusted(`${name}, on the client certificate's path, is not a CA`);
    const usage = issuer.getExtension(x509.KeyUsagesExtension);
    if (usage && (usage.usages & x509.KeyUsageFlags.keyCertSign) === 0)
      throw untrusted(`${name}, on the client certificate's path, may not sign certificates (keyUsage)`);
    // A CA whose certificates are for other purposes (extended key usage) does not vouch for a client, as OpenSSL holds.
    if (!forClients(issuer))
      throw untrusted(
        `${name}, on the client certificate's path, is not for client authentication (extended key usage)`,
      );
    if (issuer.extensions.some((e) => e.type === NAME_CONSTRAINTS))
      throw untrusted(`${name} has name constraints, which are not checked here: trust the CA below it instead`);
    // The CAs between this one and the leaf, but for self-issued ones (RFC 5280 §4.2.1.9).
    const below = path.slice(1, i).filter((c) => c.subject !== c.issuer).length;
    if (constraints.pathLength !== undefined && below > constraints.pathLength) {
      throw untrusted(
        `${name} allows ${constraints.pathLength} CA${constraints.pathLength === 1 ? '' : 's'} below it (pathlen), the path has ${below}`,
      );
    }
    unknownCritical(issuer, name);
  }
  return { validUntil: new Date(Math.min(...path.map((c) => c.notAfter.getTime()))) };
}

/** No extended key usage, or one that takes client authentication. */
function forClients(cert: x509.X509Certificate): boolean {
  const purposes = cert.getExtension(x509.ExtendedKeyUsageExtension)?.usages.map(String);
  return !purposes || purposes.length === 0 || purposes.includes(CLIENT_AUTH) || purposes.includes(ANY_EKU);
}

function checkLeaf(leaf: x509.X509Certificate): void {
  if (leaf.getExtension(x509.BasicConstraintsExtension)?.ca)
    throw untrusted("A CA's certificate is not a client certificate");
  if (!forClients(leaf))
    throw untrusted('The client certificate is not for client authentication (extended key usage)');
  const usage = leaf.getExtension(x509.KeyUsagesExtension);
  if (usage && (usage.usages & (x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyAgreement)) === 0) {
    throw untrusted("The client certificate's key may not sign (keyUsage)");
  }
  unknownCritical(leaf, 'The client certificate');
}

function unknownCritical(cert: x509.X509Certificate, name: string): void {
  const unknown = cert.extensions.find((e) => e.critical && !UNDERSTOOD.has(e.type));
  if (unknown) throw untrusted(`${name} has a critical extension that is not checked here (${unknown.type})`);
}

function equal(a: x509.X509Certificate, b: x509.X509Certificate): boolean {
  return Buffer.from(a.rawData).equals(Buffer.from(b.rawData));
}
