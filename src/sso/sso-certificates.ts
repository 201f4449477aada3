import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { SSO_CERTIFICATES, type SsoCertificateName } from '../certs/cluster-certificate-names.js';
import type { Clock } from '../clock.js';
import { ClusterCertificateError } from '../errors.js';
import type { Db } from '../store/database.js';
import { SettingCache } from '../store/setting-cache.js';
import { readSetting, writeSetting } from '../store/settings.js';
import type { KeySealer } from '../tokens/key-sealer.js';

export interface SsoCertificateSet {
  /** Tessera's own (the service provider's): signs its requests and metadata. */
  service?: { certificate: string; key: string; validTo: Date };
  /** The identity provider's: its assertions must be signed with its key. */
  issuer?: { certificate: string };
}

/** What the service key is sealed as: it cannot be moved to another setting. */
const SEALED_AS = 'sso.service_key';

/**
 * The SSO certificates in the settings table, the service key sealed under the master key
 * when there is one; read through a SettingCache (a change made here holds at once, one
 * made on another node within a second).
 */
export class SsoCertificates {
  private readonly cache: SettingCache<SsoCertificateSet>;

  constructor(
    private readonly db: Db,
    private readonly sealer: KeySealer,
    private readonly clock: Clock,
  ) {
    this.cache = new SettingCache(() => this.read(), clock);
  }

  get(): Promise<SsoCertificateSet> {
    return this.cache.get();
  }

  /** As the store has them now. */
  reload(): Promise<SsoCertificateSet> {
    return this.cache.reload();
  }

  /** Checks a certificate (and the service's key) as PUT /v1/cluster/certificates would set it; throws what is wrong. */
  check(name: SsoCertificateName, certificate: string, key: string | undefined): void {
    const cert = readCertificate(name, certificate);
    if (new Date(this.clock()) > new Date(cert.validTo)) {
      throw new ClusterCertificateError(
        'expired_certificate',
        `${name}: the certificate expired at ${new Date(cert.validTo).toISOString()}`,
      );
    }
    if (name === 'sso_issuer') {
      if (key !== undefined && key !== '')
        throw new ClusterCertificateError(
          'invalid_certificate',
          "sso_issuer is the identity provider's certificate: give no key",
        );
      return;
    }
    if (!key)
      throw new ClusterCertificateError(
        'invalid_certificate',
        'sso_service needs its private key ("key", PEM): it signs Tessera\'s requests',
      );
    let privateKey: KeyObject;
    try {
      privateKey = createPrivateKey(key);
    } catch {
      throw new ClusterCertificateError(
        'invalid_certificate',
        'sso_service: the key cannot be read (PEM, unencrypted)',
      );
    }
    if (privateKey.asymmetricKeyType !== 'rsa')
      throw new ClusterCertificateError(
        'invalid_certificate',
        'sso_service: the key must be RSA (SAML signatures here are RSA-SHA256)',
      );
    if (!cert.checkPrivateKey(privateKey))
      throw new ClusterCertificateError('invalid_certificate', "sso_service: the key is not the certificate's");
  }

  async set(name: SsoCertificateName, certificate: string, key: string | undefined): Promise<void> {
    this.check(name, certificate, key);
    if (name === 'sso_issuer') await writeSetting(this.db, name, { certificate });
    else await writeSetting(this.db, name, { certificate, key: this.sealer.seal({ key: key! }, SEALED_AS) });
    this.cache.set(await this.read());
  }

  async clear(name: SsoCertificateName): Promise<boolean> {
    const { numDeletedRows } = await this.db.deleteFrom('settings').where('key', '=', name).executeTakeFirst();
    this.cache.set(await this.read());
    return numDeletedRows > 0n;
  }

  async clearAll(): Promise<void> {
    await this.db
      .deleteFrom('settings')
      .where('key', 'in', [...SSO_CERTIFICATES])
      .execute();
    this.cache.set({});
  }

  private async read(): Promise<SsoCertificateSet> {
    const [service, issuer] = await Promise.all([
      readSetting<{ certificate: string; key: string }>(this.db, 'sso_service'),
      readSetting<{ certificate: string }>(this.db, 'sso_issuer'),
    ]);
    return {
      ...(service && {
        service: {
          certificate: service.certificate,
          key: this.sealer.open<{ key: string }>(service.key, SEALED_AS).key,
          validTo: new Date(new X509Certificate(service.certificate).validTo),
        },
      }),
      ...(issuer && { issuer }),
    };
  }
}

function readCertificate(name: string, pem: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch {
    throw new ClusterCertificateError(
      'invalid_certificate',
      `${name}: the certificate cannot be read (PEM: -----BEGIN CERTIFICATE-----)`,
    );
  }
}
