import type { X509Certificate } from 'node:crypto';
import type { Clock } from '../clock.js';
import { ClusterCertificateError } from '../errors.js';
import type { Db } from '../store/database.js';
import { SettingCache } from '../store/setting-cache.js';
import { readSetting, writeSetting } from '../store/settings.js';
import { parsePemCertificates } from './client-certificate.js';

const KEY = 'mtls_trusted_ca';

/**
 * The CA bundle that client certificates must chain to (the product's `mtls_trusted_ca`),
 * in the settings table, read through a SettingCache: a change made here holds at once, one
 * made on another node within a second.
 */
export class TrustedCa {
  private readonly cache: SettingCache<{ pem: string; certs: X509Certificate[] }>;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {
    this.cache = new SettingCache(async () => {
      const pem = (await readSetting<string>(db, KEY)) ?? '';
      return { pem, certs: pem ? parsePemCertificates(pem) : [] };
    }, clock);
  }

  async certificates(): Promise<X509Certificate[]> {
    return (await this.cache.get()).certs;
  }

  /** The trusted CAs as the store has them now (not this process's copy of up to a second ago). */
  async currentCertificates(): Promise<X509Certificate[]> {
    return (await this.cache.reload()).certs;
  }

  async pem(): Promise<string> {
    return (await this.cache.get()).pem;
  }

  /** Replaces the bundle; refuses text that holds no CA certificate, one that is not a CA, or an expired one. */
  async set(pem: string): Promise<void> {
    const certs = checkBundle(pem, new Date(this.clock()));
    await writeSetting(this.db, KEY, pem);
    this.cache.set({ pem, certs });
  }

  async clear(): Promise<void> {
    await this.db.deleteFrom('settings').where('key', '=', KEY).execute();
    this.cache.set({ pem: '', certs: [] });
  }
}

/** PEM CA certificates, each one a CA (basicConstraints CA:TRUE) within its validity. */
export function checkBundle(pem: string, now: Date): X509Certificate[] {
  let certs: X509Certificate[];
  try {
    certs = parsePemCertificates(pem);
  } catch {
    throw new ClusterCertificateError('invalid_certificate', 'certificate holds a certificate that cannot be read');
  }
  if (certs.length === 0)
    throw new ClusterCertificateError(
      'invalid_certificate',
      'certificate must hold PEM certificates (-----BEGIN CERTIFICATE-----)',
    );
  const subject = (c: X509Certificate) => c.subject.replaceAll('\n', ', ');
  const notCa = certs.find((c) => !c.ca);
  if (notCa)
    throw new ClusterCertificateError(
      'invalid_certificate',
      `certificate holds one that is not a CA (${subject(notCa)}): give the CA that signs client certificates`,
    );
  const expired = certs.find((c) => now > new Date(c.validTo));
  if (expired)
    throw new ClusterCertificateError(
      'expired_certificate',
      `certificate holds one that expired at ${new Date(expired.validTo).toISOString()} (${subject(expired)})`,
    );
  return certs;
}
