import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';
import { SettingCache } from '../store/setting-cache.js';
import { readSetting, writeSetting } from '../store/settings.js';
import type { KeySealer } from '../tokens/key-sealer.js';
import { currentUnit } from '../unit-of-work.js';

export const SINK_TYPES = ['syslog', 'webhook', 'file'] as const;
export const SINK_FORMATS = ['json', 'ocsf'] as const;
export const AUDIT_MODES = ['best_effort', 'blocking'] as const;
export const SYSLOG_PROTOCOLS = ['TCP', 'TLS'] as const;

/** One place events go (`type` says which fields it takes). */
export interface SinkSettings {
  /** Unique; names its metrics and its backlog (a sink kept by name keeps its backlog). */
  name: string;
  type: (typeof SINK_TYPES)[number];
  format: (typeof SINK_FORMATS)[number];
  /** syslog: the collector's host and port, over TCP or TLS (RFC 5425; its certificate checked against `ca_cert`, else the system's CAs). */
  address?: string;
  port?: number;
  protocol?: (typeof SYSLOG_PROTOCOLS)[number];
  ca_cert?: string;
  /** webhook: an https:// URL, each batch signed with an HMAC of `secret` (never answered). */
  url?: string;
  secret?: string;
  /** file: JSON lines appended to this absolute path on each node (reopened on SIGHUP). */
  path?: string;
}

/**
 * A sink taken out of the list, or sent elsewhere under its name: it keeps its undelivered events,
 * the event of its own removal last, delivered to where it pointed under its `key` (name~time),
 * until none is left or RETIRING_MS has passed.
 */
export interface RetiringSink extends SinkSettings {
  key: string;
  /** ms since the epoch. */
  retired_at: number;
}

/** How long a retiring sink is delivered at most. */
export const RETIRING_MS = 24 * 3_600_000;

/** The control plane's auditing (/v1/cluster/auditing/control_plane). */
export interface AuditingSettings {
  /** best_effort: past `max_backlog` a sink's oldest events are dropped and counted; blocking: changes are refused until it catches up. */
  mode: (typeof AUDIT_MODES)[number];
  /** Events a sink may have waiting. */
  max_backlog: number;
  sinks: readonly SinkSettings[];
  retiring?: readonly RetiringSink[];
}

export const AUDITING_DEFAULTS: AuditingSettings = Object.freeze({
  mode: 'best_effort',
  max_backlog: 100_000,
  sinks: [],
});

/** Where a sink's events go: a change of any of these under the same name is another sink. */
const DESTINATION = ['type', 'address', 'port', 'protocol', 'ca_cert', 'url', 'path'] as const;
export const sameDestination = (a: SinkSettings, b: SinkSettings) => DESTINATION.every((k) => a[k] === b[k]);

const KEY = 'control_plane_auditing';
/** A webhook's secret is sealed bound to its sink's name: it cannot be moved to another sink. */
const sealedAs = (sink: string) => `siem.${sink}.secret`;

/**
 * The auditing settings in the settings table, webhook secrets sealed under the master key when
 * there is one. Read through a one-second cache, as the other settings are: a change made here
 * holds at once, one made on another node within a second.
 */
export class SiemSettings {
  /** Wrapped: "none set" is a value the cache keeps too. */
  private readonly cache: SettingCache<{ settings?: AuditingSettings }>;

  constructor(
    private readonly db: Db,
    private readonly sealer: KeySealer,
    clock: Clock,
  ) {
    this.cache = new SettingCache(() => this.read(), clock);
  }

  /** The settings, or undefined when none were ever set (or they were deleted). */
  async get(): Promise<AuditingSettings | undefined> {
    return (await this.cache.get()).settings;
  }

  /** The settings as the store has them committed, read now (this node's copy left as it is: a change in progress here may have set it). */
  async committed(): Promise<AuditingSettings | undefined> {
    return (await this.read()).settings;
  }

  /** The sinks, when read within the second, without waiting; else undefined (`get` them). */
  freshSinks(): readonly SinkSettings[] | undefined {
    const fresh = this.cache.fresh();
    return fresh && (fresh.settings?.sinks ?? []);
  }

  async put(settings: AuditingSettings): Promise<void> {
    const sealed = <T extends SinkSettings>(s: T, as: string): T =>
      s.secret ? { ...s, secret: this.sealer.seal({ secret: s.secret }, sealedAs(as)) } : s;
    await writeSetting(this.db, KEY, {
      ...settings,
      sinks: settings.sinks.map((s) => sealed(s, s.name)),
      retiring: (settings.retiring ?? []).map((s) => sealed(s, s.key)),
    });
    this.cache.set({ settings: Object.freeze({ ...settings }) });
    // Rolled back, the change was never made: the next read asks the store.
    currentUnit()?.afterRollback.push(() => void this.cache.reload().catch(() => {}));
  }

  async clear(): Promise<void> {
    await this.db.deleteFrom('settings').where('key', '=', KEY).execute();
    this.cache.set({});
  }

  private async read(): Promise<{ settings?: AuditingSettings }> {
    const stored = await readSetting<AuditingSettings>(this.db, KEY);
    if (!stored) return {};
    const opened = <T extends SinkSettings>(s: T, as: string): T =>
      s.secret ? { ...s, secret: this.sealer.open<{ secret: string }>(s.secret, sealedAs(as)).secret } : s;
    return {
      settings: Object.freeze({
        ...stored,
        sinks: stored.sinks.map((s) => opened(s, s.name)),
        retiring: (stored.retiring ?? []).map((s) => opened(s, s.key)),
      }),
    };
  }
}
