// npm run lint:deps — the floors of src/ (docs/architecture.md): a folder imports its own floor
// and the floors below it, never one above; no import circle, type-only imports included.
const FLOORS = [
  ['clock.ts', 'deadline.ts', 'errors.ts', 'errors', 'events.ts', 'unit-of-work.ts'],
  ['store', 'access', 'probes', 'config', 'tls', 'schema', 'verify'],
  ['audit'],
  ['policy', 'certs'],
  ['users'],
  ['roles', 'tokens'],
  ['sessions', 'ldap', 'sso', 'guard', 'api-keys', 'mfa'],
  ['auth'],
  ['event-log', 'metrics', 'siem'],
  ['http', 'console'],
  ['tessera.ts', 'app.ts', 'server.ts'],
  ['cli'],
];

const pattern = (names) => `^src/(${names.map((n) => n.replace('.', '\\.')).join('|')})(/|$)`;

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: two parts that cannot be read, tested or replaced apart.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'on-a-floor',
      severity: 'error',
      comment:
        'Every folder of src/ is on a floor (FLOORS above, docs/architecture.md): a new one must be given its place.',
      from: { path: '^src/', pathNot: pattern(FLOORS.flat()) },
      to: { path: '^src/' },
    },
    ...FLOORS.slice(0, -1).map((floor, i) => ({
      name: `floor-${i}-imports-above`,
      severity: 'error',
      comment: `${floor.join(', ')} must not import a higher floor (docs/architecture.md)`,
      from: { path: pattern(floor) },
      to: { path: pattern(FLOORS.slice(i + 1).flat()) },
    })),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/console/vite\\.config\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};
