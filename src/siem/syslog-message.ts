import type { SiemEvent } from './siem-event.js';

/**
 * One RFC 5424 syslog message carrying an event's body. Facility authpriv (10): security and
 * authorization messages, which a syslog server keeps apart from the rest (and may keep from
 * readers of the general log). Header fields a receiver would refuse become the NILVALUE "-"
 * rather than be cut or rewritten: a wrong value is worse than none.
 */
const AUTHPRIV = 10;
const NIL = '-';
/** RFC 5424 §6.2.3: full-date "T" partial-time (at most 6 fraction digits) and a zone. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/;
const BOM = '\uFEFF';

export function syslogMessageOf(body: string, event: SiemEvent, opts: { hostname: string; appName?: string }): string {
  // RFC 5424 §6.2.1: warning (4) for a refusal or a loss, informational (6) for what happened as asked.
  const pri = AUTHPRIV * 8 + (event.severity === 'WARNING' ? 4 : 6);
  const header = [
    `<${pri}>1`,
    timestampOf(event.time),
    field(opts.hostname, 255),
    field(opts.appName ?? 'tessera', 48),
    NIL, // PROCID: the event's node already names its process, and the sender is not always the recorder
    field(event.type, 32),
    NIL, // STRUCTURED-DATA: everything is in the body
  ].join(' ');
  // Without a BOM the body is MSG-ANY (§6.4): a receiver takes it as it is, no BOM to strip.
  const msg = body.startsWith(BOM) ? body.slice(BOM.length) : body;
  return msg === '' ? header : `${header} ${msg}`;
}

/** RFC 6587 §3.4.1 octet counting: the UTF-8 length in bytes, a space, the message; a body may then hold any byte, newlines too. */
export function octetCounted(message: string): string {
  return `${Buffer.byteLength(message, 'utf8')} ${message}`;
}

/** A header field: 1 to `max` printable US-ASCII characters (33 to 126: no space), or "-". */
function field(value: string, max: number): string {
  return value.length >= 1 && value.length <= max && /^[\x21-\x7e]+$/.test(value) ? value : NIL;
}

/** The event's time as §6.2.3 has it: ISO 8601 in UTC to the millisecond already is; anything else normalised, or "-". */
function timestampOf(time: string): string {
  if (TIMESTAMP.test(time)) return time;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? NIL : new Date(ms).toISOString();
}
