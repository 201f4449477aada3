import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';
import { writeSetting } from '../store/settings.js';
import type { SecretSealer } from './api-certificate.js';
import { KEPT_CERTIFICATES, type KeptCertificateName } from './cluster-certificate-names.js';
import { certificatesOnly, checkKeyedCertificate } from './keyed-certificate.js';

/** A kept certificate's row of the settings table. */
const settingOf = (name: KeptCertificateName) => `certificate.${name}`;
/** What its key is sealed as: it cannot be moved to another certificate's row. */
const sealedAs = (name: KeptCertificateName) => `certificate.${name}.key`;

/**
 * The product's certificates that Tessera keeps without using them (`proxy`, `cm`, `syncer`, …):
 * one row each in the settings table, the certificates as read (re-encoded: nothing else the
 * text held), the key sealed under the master key when there is one, as `api`'s. Read from the
 * store every time (only GET /v1/cluster/certificates reads them); no key is ever read back.
 */
export class KeptCertificates {
  constructor(
    private readonly db: Db,
    private readonly sealer: SecretSealer,
    private readonly clock: Clock,
  ) {}

  /** The certificates (PEM) by name, those set. */
  async certificates(): Promise<Partial<Record<KeptCertificateName, string>>> {
    const rows = await this.db
      .selectFrom('settings')
      .select(['key', 'value'])
      .where('key', 'in', KEPT_CERTIFICATES.map(settingOf))
      .execute();
    const byKey = new Map(rows.map((r) => [r.key, r.value]));
    const set = KEPT_CERTIFICATES.flatMap((name) => {
      const value = byKey.get(settingOf(name));
      return value === undefined ? [] : [[name, (JSON.parse(value) as { certificate: string }).certificate] as const];
    });
    return Object.fromEntries(set);
  }

  async set(name: KeptCertificateName, given: string, key: string): Promise<void> {
    checkKeyedCertificate(name, given, key, new Date(this.clock()));
    await writeSetting(this.db, settingOf(name), {
      certificate: certificatesOnly(given),
      key: this.sealer.seal({ key }, sealedAs(name)),
    });
  }

  /** Whether there was one. */
  async clear(name: KeptCertificateName): Promise<boolean> {
    const { numDeletedRows } = await this.db
      .deleteFrom('settings')
      .where('key', '=', settingOf(name))
      .executeTakeFirst();
    return numDeletedRows > 0n;
  }
}
