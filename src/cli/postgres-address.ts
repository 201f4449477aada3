/**
 * A PostgreSQL URL as a message shows it: "db.example:5432/tessera", never its user, password or
 * query (node-postgres reads `?password=` and `sslpassword` there too).
 */
export function postgresAddress(url: string): string {
  try {
    const u = new URL(url);
    const database = decodeURIComponent(u.pathname.slice(1)) || u.searchParams.get('dbname') || '(default)';
    return `${u.host || u.searchParams.get('host') || 'localhost'}/${database}`;
  } catch {
    return 'the configured URL';
  }
}
