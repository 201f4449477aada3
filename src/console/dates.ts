/**
 * The parts of a time in the browser's zone, with that zone's short name. The parts come in
 * English (en-US: "Nov", "UTC", "GMT+1", "EST"), whatever the browser's language, so that
 * every page writes a time alike; 24-hour clock.
 */
const PARTS = new Intl.DateTimeFormat('en-US', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
  timeZoneName: 'short',
});

/**
 * A time as the console shows it everywhere, in one fixed order — day, month (named), year,
 * then hours:minutes:seconds (24 h), then the browser's zone: `27 Nov 2026, 18:40:12 GMT+1`,
 * `7 Jun 2026, 09:05:00 UTC`. No reading of the day and the month can swap them, and a narrow
 * column wraps it at its spaces only (never inside 2026-11-27). Takes what the API answers
 * (ISO 8601 text), milliseconds or a Date.
 */
export function when(at: string | number | Date): string {
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return String(at);
  const part = Object.fromEntries(PARTS.formatToParts(date).map((p) => [p.type, p.value]));
  return `${part.day} ${part.month} ${part.year}, ${part.hour}:${part.minute}:${part.second} ${part.timeZoneName}`;
}
