import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import path from 'node:path';
import { type AuditLog, type AuditRecord, actorOf, type RequestContext } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import { AuditBacklogFullError, AuditConfigNotFoundError, InvalidAuditSinkError } from '../errors.js';
import type { Delivery } from './delivery.js';
import type { Outbox, SinkRecord } from './outbox.js';
import type { SiemRecorder } from './siem-recorder.js';
import {
  AUDITING_DEFAULTS,
  type AuditingSettings,
  RETIRING_MS,
  type SiemSettings,
  type SinkSettings,
  sameDestination,
} from './siem-settings.js';

/** A sink as GET answers it: its settings (a webhook's secret never) and how its delivery goes. */
export type SinkView = Omit<SinkSettings, 'secret'> & { status: SinkStatus };

export interface SinkStatus {
  /** delivering: its last batch went (or none waited); failing: its last one did not, and it is tried again. */
  state: 'delivering' | 'failing';
  backlog: number;
  oldest_undelivered_age_seconds?: number;
  delivered: number;
  failed: number;
  dropped: number;
  last_error?: string;
  failing_since?: string;
  last_delivered_at?: string;
  /** The node delivering it (its lease's holder). */
  node?: string;
}

export interface AuditingView extends Omit<AuditingSettings, 'sinks' | 'retiring'> {
  sinks: SinkView[];
  /** Sinks taken out (or sent elsewhere under their name) whose backlog is still being delivered where they pointed. */
  retiring: (SinkView & { retired_at: string })[];
}

/** Retiring sinks kept at most (each delivered beside the live ones). */
const MAX_RETIRING = 16;

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

/**
 * The control plane's auditing (GET/PUT/DELETE /v1/cluster/auditing/control_plane): the sinks
 * that the events go to, the mode and the bound; and the one rule of blocking mode (a change
 * waits while a sink is behind by max_backlog).
 */
export class SiemService {
  constructor(
    private readonly settings: SiemSettings,
    private readonly outbox: Outbox,
    private readonly audit: AuditLog,
    private readonly recorder: Pick<SiemRecorder, 'alsoTo'>,
    private readonly clock: Clock,
    /** The folder file sinks write in (--siem-file-dir). */
    private readonly fileFolder: string,
    /** This node's delivery, when it delivers (a server; not a CLI command). */
    private readonly delivery?: Delivery,
  ) {}

  async get(): Promise<AuditingView> {
    const { retiring = [], ...settings } = (await this.settings.get()) ?? AUDITING_DEFAULTS;
    const records = await this.outbox.records();
    return {
      ...settings,
      sinks: settings.sinks.map((s) => this.viewOf(s, records.get(s.name))),
      retiring: retiring
        .filter((s) => (records.get(s.key)?.backlog ?? 0) > 0 && this.clock() - s.retired_at < RETIRING_MS)
        .map(({ key, retired_at, ...s }) => ({ ...this.viewOf(s, records.get(key)), retired_at: iso(retired_at)! })),
    };
  }

  /**
   * The sinks that leave this list (gone, or sent elsewhere under their name) and those retiring
   * still: a retiring sink keeps its backlog, delivered where it pointed, the event of its removal last.
   */
  private async retire(current: AuditingSettings, kept: readonly SinkSettings[]) {
    const now = this.clock();
    const records = await this.outbox.records();
    // Keyed by name and time, a later millisecond when a sink of the name retired in this one.
    const taken = new Set((current.retiring ?? []).map((s) => s.key));
    const keyOf = (name: string) => {
      let at = now;
      while (taken.has(`${name}~${at}`)) at++;
      return `${name}~${at}`;
    };
    const leaving = current.sinks
      .filter((s) => !kept.some((k) => k.name === s.name && sameDestination(s, k)))
      .map((s) => ({ ...s, key: keyOf(s.name), retired_at: now }));
    const over = (current.retiring ?? []).filter(
      (s) => (records.get(s.key)?.backlog ?? 0) === 0 || now - s.retired_at >= RETIRING_MS,
    );
    await this.outbox.forget(over.map((s) => s.key));
    for (const s of leaving) await this.outbox.rename(s.name, s.key);
    // At most MAX_RETIRING, the newest: the older ones' events are dropped.
    const all = [...(current.retiring ?? []).filter((s) => !over.includes(s)), ...leaving];
    const retiring = all.slice(-MAX_RETIRING);
    await this.outbox.forget(all.slice(0, -MAX_RETIRING).map((s) => s.key));
    return { leaving, retiring };
  }

  /** Fields given replace those set; `sinks` replaces the list (a sink kept by name keeps its backlog, and its secret when none is given). */
  async put(
    ctx: RequestContext,
    actor: { uid: number; username: string } | null,
    given: Partial<Omit<AuditingSettings, 'retiring'>> & { retiring?: unknown },
  ): Promise<AuditingView> {
    const current = (await this.settings.get()) ?? AUDITING_DEFAULTS;
    const { retiring: _, ...fields } = given;
    const sinks = (given.sinks ?? current.sinks).map((s) => withKeptSecret(s, current.sinks));
    validate({ ...current, ...fields, sinks }, this.fileFolder);
    const { leaving, retiring } = await this.retire(current, sinks);
    await this.settings.put({ ...current, ...fields, sinks, retiring });
    const record: AuditRecord = {
      event: 'siem_update',
      outcome: 'success',
      ...actorOf(actor),
      target: 'control_plane_auditing',
      changes: Object.keys(fields).sort(),
    };
    this.audit.record(ctx, record);
    this.recorder.alsoTo(
      leaving.map((s) => s.key),
      record,
      ctx,
    );
    return this.get();
  }

  async delete(ctx: RequestContext, actor: { uid: number; username: string } | null): Promise<void> {
    const current = await this.settings.get();
    if (!current || current.sinks.length === 0) throw new AuditConfigNotFoundError();
    const { leaving, retiring } = await this.retire(current, []);
    await this.settings.put({ ...AUDITING_DEFAULTS, retiring });
    const record: AuditRecord = {
      event: 'siem_delete',
      outcome: 'success',
      ...actorOf(actor),
      target: 'control_plane_auditing',
    };
    this.audit.record(ctx, record);
    this.recorder.alsoTo(
      leaving.map((s) => s.key),
      record,
      ctx,
    );
  }

  /** Blocking mode: why a change must wait now (a sink behind by its bound, as this node last read it), or undefined. */
  async changeRefusal(): Promise<AuditBacklogFullError | undefined> {
    const settings = await this.settings.get();
    if (settings?.mode !== 'blocking' || !this.delivery) return undefined;
    for (const sink of settings.sinks)
      if ((this.delivery.records.get(sink.name)?.changes ?? 0) >= settings.max_backlog)
        return new AuditBacklogFullError(sink.name);
    return undefined;
  }

  private viewOf(sink: SinkSettings, record: SinkRecord | undefined): SinkView {
    const { secret: _, ...shown } = sink;
    const now = this.clock();
    return {
      ...shown,
      status: JSON.parse(
        JSON.stringify({
          state: record?.failingSince === undefined ? 'delivering' : 'failing',
          backlog: record?.backlog ?? 0,
          oldest_undelivered_age_seconds:
            record?.oldestAt === undefined ? undefined : Math.max(0, Math.floor((now - record.oldestAt) / 1000)),
          delivered: record?.delivered ?? 0,
          failed: record?.failed ?? 0,
          dropped: record?.dropped ?? 0,
          last_error: record?.lastError,
          failing_since: iso(record?.failingSince),
          last_delivered_at: iso(record?.lastDeliveredAt),
          node: record?.node || undefined,
        }),
      ) as SinkStatus,
    };
  }
}

/** A webhook sink given again without its secret (GET never shows it) keeps the one it had — to the same URL and CA only. */
function withKeptSecret(sink: SinkSettings & { status?: unknown }, current: readonly SinkSettings[]): SinkSettings {
  const { status: _, ...given } = sink;
  if (given.type !== 'webhook' || given.secret !== undefined) return given;
  const before = current.find((s) => s.name === given.name && sameDestination(s, given));
  return before?.secret === undefined ? given : { ...given, secret: before.secret };
}

const FIELDS: Record<SinkSettings['type'], readonly (keyof SinkSettings)[]> = {
  syslog: ['address', 'port', 'protocol', 'ca_cert'],
  webhook: ['url', 'secret', 'ca_cert'],
  file: ['path'],
};

/** What makes a sink unusable, said before anything is stored. */
function validate(settings: AuditingSettings, fileFolder: string): void {
  const names = new Set<string>();
  for (const sink of settings.sinks) {
    const at = `sink "${sink.name}"`;
    if (names.has(sink.name))
      throw new InvalidAuditSinkError(`two sinks are named "${sink.name}": a name is one sink's`);
    names.add(sink.name);
    const other = (Object.keys(sink) as (keyof SinkSettings)[]).find(
      (k) => !['name', 'type', 'format'].includes(k) && !FIELDS[sink.type].includes(k),
    );
    if (other)
      throw new InvalidAuditSinkError(
        `${at}: a ${sink.type} sink takes no "${other}" (it takes ${FIELDS[sink.type].join(', ')})`,
      );
    if (sink.type === 'syslog') {
      if (!sink.address || sink.port === undefined)
        throw new InvalidAuditSinkError(`${at}: a syslog sink needs "address" and "port" (its collector)`);
    }
    if (sink.type === 'webhook') {
      if (!sink.url) throw new InvalidAuditSinkError(`${at}: a webhook sink needs "url"`);
      let url: URL;
      try {
        url = new URL(sink.url);
      } catch {
        throw new InvalidAuditSinkError(`${at}: "url" is not a URL`);
      }
      if (url.protocol !== 'https:')
        throw new InvalidAuditSinkError(`${at}: "url" must be https:// (the events name people and addresses)`);
      if (url.username || url.password)
        throw new InvalidAuditSinkError(`${at}: "url" must not hold credentials (give "secret")`);
      if (!sink.secret)
        throw new InvalidAuditSinkError(
          `${at}: a webhook sink needs "secret" (at least 16 characters): each batch is signed with it`,
        );
    }
    if (sink.type === 'file') {
      const target = sink.path && path.resolve(fileFolder, sink.path);
      if (!target?.startsWith(`${fileFolder}${path.sep}`))
        throw new InvalidAuditSinkError(
          `${at}: a file sink's "path" is a file in the SIEM file folder ${fileFolder} (--siem-file-dir), by its name or in full`,
        );
    }
    if (sink.ca_cert !== undefined) {
      try {
        new X509Certificate(sink.ca_cert);
      } catch {
        throw new InvalidAuditSinkError(`${at}: "ca_cert" is not a PEM certificate`);
      }
    }
    if (sink.type === 'syslog' && sink.protocol !== 'TLS' && sink.ca_cert !== undefined)
      throw new InvalidAuditSinkError(`${at}: "ca_cert" is for protocol TLS`);
    if (sink.address !== undefined && isIP(sink.address) === 0 && !/^[a-z0-9.-]+$/i.test(sink.address))
      throw new InvalidAuditSinkError(`${at}: "address" is a host name or an IP address`);
  }
}
