/** ISO 8601's extended form: a date, then a time to the minute, second or fraction, then a zone — each after the date optional. */
const ISO_8601 = /^(\d{4})-(\d\d)-(\d\d)(?:T(\d\d):(\d\d)(?::(\d\d)(\.\d{1,9})?)?)?(Z|[+-]\d\d:?\d\d)?$/i;

/** The times the log's text can hold (ISO text compares as text only within years 0000 to 9999). */
const FIRST = Date.parse('0000-01-01T00:00:00.000Z');
const LAST = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * The instant (ms) an ISO 8601 time names, or undefined when it names none (a day past its
 * month's end, a 25th hour, a leap second, anything after it, a year past 9999 once its zone is
 * counted). A time without a zone (`2026-11-27T10:00:00`, as the product's docs write some) is
 * UTC, as every time the log shows is — never the server's local time.
 */
export function instantOf(text: string): number | undefined {
  const m = ISO_8601.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((field) => Number(field ?? 0));
  const offset = m[8] === undefined || m[8].toUpperCase() === 'Z' ? 0 : offsetMinutes(m[8]);
  if (offset === undefined || hour! > 23 || minute! > 59 || second! > 59) return undefined;
  // setUTCFullYear, not Date.UTC: that reads the years 0 to 99 as 1900 to 1999.
  const at = new Date(0);
  at.setUTCFullYear(year!, month! - 1, day);
  // A 30th of February rolls over into March: a day out of its month names no time.
  if (at.getUTCFullYear() !== year || at.getUTCMonth() !== month! - 1 || at.getUTCDate() !== day) return undefined;
  at.setUTCHours(hour!, minute!, second!, Math.floor(Number(`0${m[7] ?? ''}`) * 1000));
  const instant = at.getTime() - offset * 60_000;
  return instant >= FIRST && instant <= LAST ? instant : undefined;
}

/** +01:00, -0530: minutes east of UTC; an hour past 23 or a minute past 59 is none. */
function offsetMinutes(zone: string): number | undefined {
  const digits = zone.slice(1).replace(':', '');
  const [hours, minutes] = [Number(digits.slice(0, 2)), Number(digits.slice(2))];
  if (hours > 23 || minutes > 59) return undefined;
  return (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}
