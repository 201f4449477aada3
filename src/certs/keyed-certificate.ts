import { createPrivateKey, type KeyObject, type X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { ClusterCertificateError } from '../errors.js';
import { parsePemCertificates } from './client-certificate.js';
import { CLUSTER_CERTIFICATES, type KeyedCertificateName, type TlsUse } from './cluster-certificate-names.js';

/** A certificate made a moment ago on a machine whose clock is a little ahead is not refused as "not yet valid". */
const NOT_BEFORE_SKEW_MS = 5 * 60_000;

/** The curves every TLS client takes (RFC 8446's and browsers'); a key on another one makes a listener no client can reach. */
const CURVES = new Set(['prime256v1', 'secp384r1', 'secp521r1']);
/** The extended key usage each use needs (RFC 5280 §4.2.1.12). */
const PURPOSE: Record<TlsUse, { oid: string; name: string }> = {
  server: { oid: '1.3.6.1.5.5.7.3.1', name: 'serverAuth' },
  client: { oid: '1.3.6.1.5.5.7.3.2', name: 'clientAuth' },
};
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The certificates of a PEM alone, re-encoded from what was read (whatever else the text held — a key — never goes with them). */
export function certificatesOnly(pem: string): string {
  return parsePemCertificates(pem)
    .map((c) => c.toString())
    .join('');
}

/** A key every TLS peer can verify a handshake with: RSA of 2048 bits or more, EC on P-256/384/521, or Ed25519. */
function usable(key: KeyObject): boolean {
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'rsa') return (details.modulusLength ?? 0) >= 2048;
  if (key.asymmetricKeyType === 'ec') return CURVES.has(details.namedCurve ?? '');
  return key.asymmetricKeyType === 'ed25519';
}
const subjectOf = (c: X509Certificate) => (c.subject ?? '').replaceAll('\n', ', ') || '(empty subject)';

/**
 * Checks a cluster certificate given with its key (`api`, and the product's others Tessera
 * keeps: `proxy`, `cm`, …) as TLS would use them, before anything is stored: both read, the key
 * is the leaf's, every certificate of the chain within its validity now (its start may be up to
 * five minutes ahead: clocks differ), the chain in order (each signed by the next), and TLS takes
 * the pair. Throws what is wrong, naming the certificate (never quoting the key); answers the
 * certificates, leaf first.
 */
export function checkKeyedCertificate(
  name: KeyedCertificateName,
  certificate: string,
  key: string | undefined,
  now: Date,
): X509Certificate[] {
  const invalid = (why: string) => new ClusterCertificateError('invalid_certificate', `${name}: ${why}`);
  let chain: X509Certificate[];
  try {
    chain = parsePemCertificates(certificate);
  } catch {
    throw invalid('the certificate holds a certificate that cannot be read');
  }
  if (chain.length === 0) throw invalid('certificate must hold PEM certificates (-----BEGIN CERTIFICATE-----)');
  // Only certificates: a key pasted beside them would be answered to every reader of GET.
  if (certificate.replace(PEM_CERTIFICATE, '').trim() !== '')
    throw invalid('certificate must hold PEM certificates only (give the key as "key")');
  if (!key) throw invalid('the certificate needs its private key ("key", PEM)');
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw invalid('the key cannot be read (PEM, unencrypted)');
  }
  const leaf = chain[0]!;
  if (!leaf.checkPrivateKey(privateKey)) throw invalid("the key is not the certificate's (the first in the PEM)");
  if (!usable(privateKey))
    throw invalid(
      'the key must be RSA of 2048 bits or more, EC on P-256, P-384 or P-521, or Ed25519: TLS peers refuse others',
    );
  // A CA that signs others is no server's or client's certificate (a self-signed one, alone, may say CA: openssl req -x509 does).
  if (leaf.ca && !(chain.length === 1 && leaf.checkIssued(leaf)))
    throw invalid(`${subjectOf(leaf)} is a CA certificate: give the ${name} certificate itself, signed by it`);
  // Node's `keyUsage` is the extended key usage; absent, the certificate may serve any purpose.
  for (const use of CLUSTER_CERTIFICATES[name].uses)
    if (leaf.keyUsage && !leaf.keyUsage.includes(PURPOSE[use].oid))
      throw invalid(
        `${subjectOf(leaf)} is not made for TLS ${use}s (its extended key usage lacks ${PURPOSE[use].name})`,
      );
  for (const cert of chain) {
    if (now > new Date(cert.validTo))
      throw new ClusterCertificateError(
        'expired_certificate',
        `${name}: ${subjectOf(cert)} expired at ${new Date(cert.validTo).toISOString()}`,
      );
    if (now.getTime() + NOT_BEFORE_SKEW_MS < Date.parse(cert.validFrom))
      throw invalid(`${subjectOf(cert)} is not valid before ${new Date(cert.validFrom).toISOString()}`);
  }
  for (let i = 0; i + 1 < chain.length; i++) {
    const [cert, next] = [chain[i]!, chain[i + 1]!];
    if (!signedBy(cert, next))
      throw invalid(
        `the chain is out of order: ${subjectOf(cert)} is not signed by the certificate after it (${subjectOf(next)}); give the leaf first, then each issuer`,
      );
  }
  try {
    createSecureContext({ cert: certificate, key });
  } catch {
    throw invalid('TLS cannot use this certificate with this key');
  }
  return chain;
}

/** Whether `cert` names `issuer` as its issuer and carries its signature (a key that cannot verify: no). */
function signedBy(cert: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
  } catch {
    return false;
  }
}
