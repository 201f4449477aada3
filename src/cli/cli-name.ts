/**
 * How the person reading a message runs this CLI: `npm run tessera --` when npm started it (the
 * README's way, from a checkout: `npm run tessera` or `npm start`), `tessera` otherwise (a bin on PATH).
 */
export function cliName(): string {
  const script = process.env.npm_lifecycle_event;
  return script === 'tessera' || script === 'start' ? 'npm run tessera --' : 'tessera';
}
