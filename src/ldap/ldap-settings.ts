import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';
import { SettingCache } from '../store/setting-cache.js';
import { readSetting, writeSetting } from '../store/settings.js';
import type { KeySealer } from '../tokens/key-sealer.js';
import { LDAP_DEFAULTS, type LdapConfig } from './ldap-config.js';

const KEY = 'ldap';
/** What the sealed bind password is bound to: it cannot be moved to another setting. */
const SEALED_AS = 'ldap.bind_pass';

/**
 * The LDAP configuration in the settings table, the bind password sealed under the master
 * key when there is one. Read with the policy's one-second cache: a change made here is
 * effective at once, one made on another node within a second.
 */
export class LdapSettings {
  private readonly cache: SettingCache<LdapConfig>;

  constructor(
    private readonly db: Db,
    private readonly sealer: KeySealer,
    clock: Clock,
  ) {
    this.cache = new SettingCache(() => this.read(), clock);
  }

  get(): Promise<LdapConfig> {
    return this.cache.get();
  }

  /** The configuration as the store has it now (not this process's copy of up to a second ago). */
  reload(): Promise<LdapConfig> {
    return this.cache.reload();
  }

  async put(config: LdapConfig): Promise<void> {
    const { bind_pass, ...rest } = config;
    await writeSetting(this.db, KEY, {
      ...rest,
      bind_pass: bind_pass ? this.sealer.seal({ bind_pass }, SEALED_AS) : '',
    });
    this.cache.set(Object.freeze({ ...config }));
  }

  /** DELETE /v1/cluster/ldap: back to the defaults (LDAP logins off). */
  async clear(): Promise<void> {
    await this.db.deleteFrom('settings').where('key', '=', KEY).execute();
    this.cache.set(LDAP_DEFAULTS);
  }

  private async read(): Promise<LdapConfig> {
    const stored = await readSetting<LdapConfig>(this.db, KEY);
    if (!stored) return LDAP_DEFAULTS;
    const bind_pass = stored.bind_pass
      ? this.sealer.open<{ bind_pass: string }>(stored.bind_pass, SEALED_AS).bind_pass
      : '';
    return Object.freeze({ ...LDAP_DEFAULTS, ...stored, bind_pass });
  }
}
