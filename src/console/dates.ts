/** A time as the console shows it everywhere: the browser's locale and zone, date and time. */
export const when = (at: string | number | Date) => new Date(at).toLocaleString();
