import { createPrivateKey, type KeyObject, type X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import type { Clock } from '../clock.js';
import { ClusterCertificateError } from '../errors.js';
import type { Db } from '../store/database.js';
import { SettingCache } from '../store/setting-cache.js';
import { readSetting, writeSetting } from '../store/settings.js';
import { parsePemCertificates } from './client-certificate.js';

/** The REST API's own certificate (the product's `api`), as stored for every node's listener. */
export interface ApiCertificate {
  /** PEM: the leaf, then the chain it is served with. */
  certificate: string;
  /** PEM private key (opened: never answered, never logged). */
  key: string;
  /** `rotated`: made by Tessera (POST /v1/cluster/certificates/rotate); `given`: an operator's. */
  origin: 'given' | 'rotated';
}

/** What seals the key at rest (tokens/key-sealer.ts's KeySealer fits it). */
export interface SecretSealer {
  seal(value: Record<string, string>, boundTo: string): string;
  open<T>(stored: string, boundTo: string): T;
}

const SETTING = 'api_certificate';
/** What the key is sealed as: it cannot be moved to another setting. */
const SEALED_AS = 'api.key';

/** A certificate made a moment ago on a machine whose clock is a little ahead is not refused as "not yet valid". */
const NOT_BEFORE_SKEW_MS = 5 * 60_000;

const invalid = (why: string) => new ClusterCertificateError('invalid_certificate', `api: ${why}`);
/** The curves every TLS client takes (RFC 8446's and browsers'); a key on another one makes a listener no client can reach. */
const CURVES = new Set(['prime256v1', 'secp384r1', 'secp521r1']);
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The certificates of a PEM alone, re-encoded from what was read (whatever else the text held — a key — never goes with them). */
export function certificatesOnly(pem: string): string {
  return parsePemCertificates(pem)
    .map((c) => c.toString())
    .join('');
}

/** A key every TLS client can verify a handshake with: RSA of 2048 bits or more, EC on P-256/384/521, or Ed25519. */
function servable(key: KeyObject): boolean {
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'rsa') return (details.modulusLength ?? 0) >= 2048;
  if (key.asymmetricKeyType === 'ec') return CURVES.has(details.namedCurve ?? '');
  return key.asymmetricKeyType === 'ed25519';
}
const subjectOf = (c: X509Certificate) => (c.subject ?? '').replaceAll('\n', ', ') || '(empty subject)';

/**
 * Checks a certificate and key as the API's listener would serve them, before anything is
 * stored: both read, the key is the leaf's, every certificate of the chain within its
 * validity now (its start may be up to five minutes ahead: clocks differ), the chain in order (each signed by the next), and TLS takes the pair. Throws
 * what is wrong (never quoting the key); answers the certificates, leaf first.
 */
export function checkApiCertificate(certificate: string, key: string | undefined, now: Date): X509Certificate[] {
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
  if (!key) throw invalid('the API certificate needs its private key ("key", PEM)');
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw invalid('the key cannot be read (PEM, unencrypted)');
  }
  const leaf = chain[0]!;
  if (!leaf.checkPrivateKey(privateKey)) throw invalid("the key is not the certificate's (the first in the PEM)");
  if (!servable(privateKey))
    throw invalid(
      'the key must be RSA of 2048 bits or more, EC on P-256, P-384 or P-521, or Ed25519: clients refuse others',
    );
  // A CA that signs others is no server's certificate (a self-signed one, alone, may say CA: openssl req -x509 does).
  if (leaf.ca && !(chain.length === 1 && leaf.checkIssued(leaf)))
    throw invalid(`${subjectOf(leaf)} is a CA certificate: give the server's own, signed by it`);
  if (leaf.keyUsage && !leaf.keyUsage.includes(SERVER_AUTH))
    throw invalid(`${subjectOf(leaf)} is not made for TLS servers (its extended key usage lacks serverAuth)`);
  for (const cert of chain) {
    if (now > new Date(cert.validTo))
      throw new ClusterCertificateError(
        'expired_certificate',
        `api: ${subjectOf(cert)} expired at ${new Date(cert.validTo).toISOString()}`,
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
    throw invalid('TLS cannot serve this certificate with this key');
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

/**
 * The stored API certificate (settings table, the key sealed under the master key when there
 * is one), read through a SettingCache: a change made here holds at once, one made on another
 * node within a second. None stored: each node serves what it started with.
 */
export class ApiCertificates {
  private readonly cache: SettingCache<ApiCertificate | undefined>;

  constructor(
    private readonly db: Db,
    private readonly sealer: SecretSealer,
    private readonly clock: Clock,
  ) {
    this.cache = new SettingCache(() => this.read(), clock);
  }

  get(): Promise<ApiCertificate | undefined> {
    return this.cache.get();
  }

  /** As the store has it now (not this process's copy of up to a second ago). */
  reload(): Promise<ApiCertificate | undefined> {
    return this.cache.reload();
  }

  async set(given: string, key: string, origin: ApiCertificate['origin']): Promise<void> {
    checkApiCertificate(given, key, new Date(this.clock()));
    const certificate = certificatesOnly(given);
    await writeSetting(this.db, SETTING, { certificate, key: this.sealer.seal({ key }, SEALED_AS), origin });
    this.cache.set({ certificate, key, origin });
  }

  /** Whether there was one. */
  async clear(): Promise<boolean> {
    const { numDeletedRows } = await this.db.deleteFrom('settings').where('key', '=', SETTING).executeTakeFirst();
    this.cache.set(undefined);
    return numDeletedRows > 0n;
  }

  private async read(): Promise<ApiCertificate | undefined> {
    const stored = await readSetting<{ certificate: string; key: string; origin: ApiCertificate['origin'] }>(
      this.db,
      SETTING,
    );
    return (
      stored && {
        certificate: stored.certificate,
        key: this.sealer.open<{ key: string }>(stored.key, SEALED_AS).key,
        origin: stored.origin,
      }
    );
  }
}
