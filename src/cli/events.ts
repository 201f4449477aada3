import { Command, InvalidArgumentError } from 'commander';
import type { LoggedEvent } from '../event-log/event-log.js';
import { instantOf } from '../event-log/event-time.js';
import { eventTypeRefusal } from '../event-log/event-types.js';
import { addStoreOptions, type SettingOptions } from './options.js';
import { withStore } from './with-store.js';

/** A time as ISO 8601 (without a zone: UTC, as the times shown), or how long ago: 30m, 12h, 7d. */
function when(value: string): string {
  const ago = /^(\d+)([mhd])$/.exec(value);
  const at = ago
    ? Date.now() - Number(ago[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[ago[2] as 'm' | 'h' | 'd']
    : (instantOf(value) ?? Number.NaN);
  const time = new Date(at);
  if (Number.isNaN(time.getTime()))
    throw new InvalidArgumentError('give a time like 2026-11-25T09:00:00Z, or how long ago: 30m, 12h, 7d');
  return time.toISOString();
}

function whole(value: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('must be 1 to 99999');
  return Number(value);
}

/** One line for a person: when, how bad, what, who did it to whom, how it ended. */
function line(e: LoggedEvent): string {
  const by = e.actor ? `by ${String(e.actor)}` : '';
  const about = e.username
    ? `user ${String(e.username)}${e.uid ? ` (${String(e.uid)})` : ''}`
    : e.target
      ? String(e.target)
      : '';
  const detail = [
    e.realm && `realm ${String(e.realm)}`,
    e.reason && String(e.reason),
    Array.isArray(e.changes) && e.changes.length > 0 && `changed ${e.changes.join(', ')}`,
    e.ip && `from ${String(e.ip)}`,
    typeof e.count === 'number' && e.count > 1 && `${e.count} times`,
  ]
    .filter(Boolean)
    .join('; ');
  return [
    e.time,
    e.severity.padEnd(7),
    String(e.type).padEnd(22),
    [about, by].filter(Boolean).join(' '),
    detail && `— ${detail}`,
  ]
    .filter(Boolean)
    .join('  ');
}

function eventType(value: string): string {
  const refused = eventTypeRefusal(value);
  if (refused) throw new InvalidArgumentError(refused);
  return value;
}

export function eventsCommand(): Command {
  return addStoreOptions(new Command('events'))
    .description('Show the event log: who did what and when, on every node (what GET /v1/logs serves)')
    .option('--since <time>', 'from this time (ISO 8601) or this long ago (30m, 12h, 7d)', when)
    .option('--until <time>', 'until this time', when)
    .option(
      '--type <type>',
      'only events of this type (cluster_updated, user_created, user_updated, user_deleted, authorize, lockout, role_update, …)',
      eventType,
    )
    .option('--user <uid>', 'only events about this user or by it', whole)
    .option('--limit <n>', 'the newest this many', whole, 50)
    .option('--json', 'one JSON object a line, as GET /v1/logs answers them')
    .addHelpText(
      'after',
      `
Examples:
  tessera events --since 24h --type authorize      logins and refused ones of the last day
  tessera events --user 7 --limit 200              what happened to user 7, and what it did
  tessera events --json | jq 'select(.severity == "WARNING")'

Kept --event-log-days (90) and at most --event-log-max (1,000,000) events, the newest.`,
    )
    .action(
      async (
        o: SettingOptions & {
          since?: string;
          until?: string;
          type?: string;
          user?: number;
          limit: number;
          json?: boolean;
        },
      ) => {
        const events = await withStore(o, (t) =>
          t.eventLog.query({
            ...(o.since && { stime: o.since }),
            ...(o.until && { etime: o.until }),
            ...(o.type && { type: o.type }),
            ...(o.user && { uid: o.user }),
            order: 'desc',
            limit: o.limit,
            offset: 0,
          }),
        );
        events.reverse(); // oldest first, as a log reads
        for (const e of events) process.stdout.write(`${o.json ? JSON.stringify(e) : line(e)}\n`);
        if (events.length === 0) process.stderr.write('No events match.\n');
      },
    );
}
