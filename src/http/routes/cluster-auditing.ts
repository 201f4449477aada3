import Type from 'typebox';
import { AUDIT_MODES, SINK_FORMATS, SINK_TYPES, SYSLOG_PROTOCOLS } from '../../siem/siem-settings.js';
import { callerOf } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { CALLER, Ok, StringEnum } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

const PATH = '/v1/cluster/auditing/control_plane';

const SinkStatus = Type.Object(
  {
    state: StringEnum(['delivering', 'failing'] as const),
    backlog: Type.Integer({ description: 'events waiting for this sink' }),
    oldest_undelivered_age_seconds: Type.Optional(Type.Integer()),
    delivered: Type.Integer({ description: 'events delivered, by every node' }),
    failed: Type.Integer({ description: 'batches the sink did not take (each sent again)' }),
    dropped: Type.Integer({ description: 'events dropped undelivered (best_effort, past max_backlog)' }),
    last_error: Type.Optional(Type.String()),
    failing_since: Type.Optional(Type.String({ format: 'date-time' })),
    last_delivered_at: Type.Optional(Type.String({ format: 'date-time' })),
    node: Type.Optional(Type.String({ description: 'the node delivering it now' })),
  },
  { description: 'read-only: how its delivery goes (accepted in a PUT, whatever its value, and ignored)' },
);

const SinkFields = {
  name: Type.String({
    pattern: '^[a-z0-9][a-z0-9_-]{0,63}$',
    description: '1 to 64 of a-z, 0-9, _ and -, first a letter or a digit (unique: names its metrics and its backlog)',
  }),
  type: StringEnum(SINK_TYPES),
  format: StringEnum(SINK_FORMATS, {
    description: "json: Tessera's event (as GET /v1/logs) with its id; ocsf: OCSF 1.1",
  }),
  address: Type.Optional(Type.String({ minLength: 1, maxLength: 253, description: "syslog: the collector's host" })),
  port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65_535, description: "syslog: the collector's port" })),
  protocol: Type.Optional(
    StringEnum(SYSLOG_PROTOCOLS, { description: 'syslog: TCP (RFC 6587) or TLS (RFC 5425); TCP when absent' }),
  ),
  ca_cert: Type.Optional(
    Type.String({
      maxLength: 65_536,
      description: "TLS: PEM, what the far end's certificate must chain to (the system's CAs when absent)",
    }),
  ),
  url: Type.Optional(Type.String({ maxLength: 2048, description: 'webhook: an https:// URL' })),
  secret: Type.Optional(
    Type.String({
      minLength: 16,
      maxLength: 1024,
      description: 'webhook: what each batch is signed with (HMAC-SHA256); never answered, kept when a PUT omits it',
    }),
  ),
  path: Type.Optional(
    Type.String({
      maxLength: 4096,
      description: 'file: a file in the SIEM file folder of each node (--siem-file-dir), by its name or in full',
    }),
  ),
};

const SinkBody = Type.Object({ ...SinkFields, status: Type.Optional(Type.Unknown()) }, { additionalProperties: false });
const { secret: _, ...shown } = SinkFields;
const SinkView = Type.Object({ ...shown, status: SinkStatus });

const ModeFields = {
  mode: StringEnum(AUDIT_MODES, {
    description:
      'best_effort: past max_backlog the oldest undelivered events are dropped and counted; blocking: changes are refused (503) until the sink catches up',
  }),
  max_backlog: Type.Integer({ minimum: 100, maximum: 10_000_000, description: 'events a sink may have waiting' }),
};

const AuditingView = Type.Object({
  ...ModeFields,
  sinks: Type.Array(SinkView),
  retiring: Type.Array(
    Type.Object({ ...shown, status: SinkStatus, retired_at: Type.String({ format: 'date-time' }) }),
    {
      description:
        'sinks taken out, or sent elsewhere under their name, whose backlog is still delivered where they pointed (the event of their removal last), for a day at most',
    },
  ),
});
const AuditingBody = Type.Object(
  {
    mode: Type.Optional(ModeFields.mode),
    max_backlog: Type.Optional(ModeFields.max_backlog),
    sinks: Type.Optional(Type.Array(SinkBody, { maxItems: 16 })),
    retiring: Type.Optional(Type.Unknown({ description: 'read-only: accepted as GET answers it, and ignored' })),
  },
  { additionalProperties: false },
);

/**
 * GET, PUT and DELETE /v1/cluster/auditing/control_plane: where the control plane's security
 * events go (SIEM sinks), beside the product's /v1/cluster/auditing/db_conns — admin only, as the
 * sinks say where a cluster's records are kept.
 */
export function clusterAuditingRoutes(app: TesseraApp, { siem }: Pick<HttpServices, 'siem'>): void {
  const doc = { tags: ['cluster'], security: CALLER };
  app.get(
    PATH,
    {
      config: { access: 'update_cluster' },
      schema: {
        ...doc,
        summary:
          "The control plane's auditing: its SIEM sinks (never a webhook's secret), each with how its delivery goes (admin)",
        response: { 200: AuditingView },
      },
    },
    () => siem.get(),
  );
  app.put(
    PATH,
    {
      config: { access: 'update_cluster', unblocksAuditing: true, errors: ['invalid_audit_sink'] },
      schema: {
        ...doc,
        summary:
          'Set the fields given; `sinks` replaces the list (a sink kept by its name keeps its backlog, and its secret when none is given) (admin)',
        body: AuditingBody,
        response: { 200: AuditingView },
      },
    },
    (request) => siem.put(contextOf(request), callerOf(request), request.body),
  );
  app.delete(
    PATH,
    {
      config: { access: 'update_cluster', unblocksAuditing: true, errors: ['audit_config_not_found'] },
      schema: {
        ...doc,
        summary:
          'No sinks any more: each retires, its backlog delivered where it pointed, this removal last, for a day at most (admin)',
        response: { 200: Ok },
      },
    },
    async (request) => {
      await siem.delete(contextOf(request), callerOf(request));
      return {};
    },
  );
}
