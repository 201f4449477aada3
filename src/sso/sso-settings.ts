import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';
import { SettingCache } from '../store/setting-cache.js';
import { readSetting, writeSetting } from '../store/settings.js';
import { SSO_DEFAULTS, type SsoConfig } from './sso-config.js';

const KEY = 'sso';

/** The SSO configuration in the settings table: a change made here holds at once, one made on another node within a second. */
export class SsoSettings {
  private readonly cache: SettingCache<SsoConfig>;

  constructor(
    private readonly db: Db,
    clock: Clock,
  ) {
    this.cache = new SettingCache(async () => {
      const stored = await readSetting<Partial<SsoConfig>>(db, KEY);
      return stored ? Object.freeze({ ...SSO_DEFAULTS, ...stored }) : SSO_DEFAULTS;
    }, clock);
  }

  get(): Promise<SsoConfig> {
    return this.cache.get();
  }

  fresh(): SsoConfig | undefined {
    return this.cache.fresh();
  }

  /** As the store has it now. */
  reload(): Promise<SsoConfig> {
    return this.cache.reload();
  }

  async put(config: SsoConfig): Promise<void> {
    await writeSetting(this.db, KEY, config);
    this.cache.set(Object.freeze({ ...config }));
  }

  async clear(): Promise<void> {
    await this.db.deleteFrom('settings').where('key', '=', KEY).execute();
    this.cache.set(SSO_DEFAULTS);
  }
}
