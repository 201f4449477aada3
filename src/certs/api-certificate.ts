import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';
import { SettingCache } from '../store/setting-cache.js';
import { readSetting, writeSetting } from '../store/settings.js';
import { certificatesOnly, checkKeyedCertificate } from './keyed-certificate.js';

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
    checkKeyedCertificate('api', given, key, new Date(this.clock()));
    const certificate = certificatesOnly(given);
    await writeSetting(this.db, SETTING, { certificate, key: this.sealer.seal({ key }, SEALED_AS), origin });
    this.cache.set({ certificate, key, origin });
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
