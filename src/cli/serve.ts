import { Command } from 'commander';
import { type Config, issuerOf } from '../config/config.js';
import { startServer } from '../server.js';
import { settledNotice } from '../tokens/store-issuer.js';
import { CliError } from './cli-error.js';
import { cliName } from './cli-name.js';
import { addServeOptions, configFromOptions, type SettingOptions } from './options.js';
import { postgresAddress } from './postgres-address.js';
import { explainStartFailure } from './start-failure.js';

export function serveCommand(): Command {
  return addServeOptions(new Command('serve'))
    .description('Start the Tessera service: HTTPS, users in SQLite under --data-dir or in PostgreSQL (--database-url)')
    .addHelpText(
      'after',
      `
On an empty store the first admin is created from TESSERA_ADMIN_USERNAME and
TESSERA_ADMIN_PASSWORD, or, when they are unset, as admin@tessera.local with a
random password that is printed once. Logs are JSON lines on standard output;
messages for you go to standard error.

The embedded SQLite store suits one node. For many nodes behind a load balancer, give
every node the same PostgreSQL (--database-url) and Redis (--redis-url, which shares
lockout counters and throttling); the nodes keep no state of their own.

Examples:
  tessera serve                                   # https://127.0.0.1:9443, ./data
  tessera serve --listen 0.0.0.0:9443 --data-dir /var/lib/tessera
  tessera serve --no-tls --listen 127.0.0.1:8080  # behind a TLS proxy
  TESSERA_DATABASE_URL=postgres://tessera@db/tessera TESSERA_REDIS_URL=redis://cache:6379 \\
    tessera serve --listen 0.0.0.0:9443           # one of many nodes`,
    )
    .action(async (options: SettingOptions, command: Command) => {
      const config = configFromOptions(options);
      const server = await startServer(config, {
        username: process.env.TESSERA_ADMIN_USERNAME,
        password: process.env.TESSERA_ADMIN_PASSWORD,
      }).catch((err: unknown) => {
        const explained = explainStartFailure(err, config);
        throw explained ? new CliError(explained, 1, err) : err;
      });
      const say = (line = '') => process.stderr.write(`${line}\n`);
      // Heard before anything says the server is up: a stop sent right after it would otherwise
      // meet the signal's default action and end the process without closing the store.
      const stop = (signal: string) => {
        say(`${signal}: finishing in-flight requests, then stopping`);
        server.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
      stopWhenNpmShellExits(stop);
      if (server.tls?.generatedAt) {
        say(`Made a self-signed TLS certificate: ${server.tls.generatedAt} (curl: --cacert it, or -k)`);
      }
      const admin = server.firstAdmin;
      if (admin.created) {
        say(`Created the first admin: ${admin.username}`);
        if (admin.generatedPassword) {
          say('Its password, shown this once only (keep it: `read -rs PASSWORD`, then paste it):');
          say(`\n    ${admin.generatedPassword}\n`);
          if (!process.stderr.isTTY) say(SUPERVISED_PASSWORD_NOTE);
        }
        await admin.shown();
      } else {
        if (process.env.TESSERA_ADMIN_USERNAME || process.env.TESSERA_ADMIN_PASSWORD) {
          say(
            'TESSERA_ADMIN_USERNAME and TESSERA_ADMIN_PASSWORD were ignored: they make the first admin of an empty store only, and this store has users',
          );
        }
        if (admin.unshownPasswordOf) {
          say(
            `The first admin ${admin.unshownPasswordOf} got a generated password that an earlier start never showed. Set one:`,
          );
          say(
            `\n    ${setPasswordCommand(admin.unshownPasswordOf, config, command.getOptionValueSource('databaseUrl') === 'env')}\n`,
          );
        }
      }
      const issuerNotice = settledNotice(server.tessera.issuer, issuerOf(server.tessera.config));
      if (issuerNotice) say(issuerNotice);
      if (server.metricsUrl) {
        const management = new URL(server.metricsUrl).origin;
        say(
          `Management listener at ${management} (/metrics for Prometheus, /healthz, /readyz; move it: --metrics-listen)`,
        );
      } else
        say('No management listener (--metrics-listen off): no /metrics; /healthz and /readyz answer on the API port');
      say(`Web console at ${server.url}/, API reference at ${server.url}/docs`);
      say(`Tessera listening on ${server.url} (API line ${config.apiLine}, data in ${whereDataIs(config)})`);
    });
}

/** Under systemd or Kubernetes standard error is the service's log, where the password now is. */
const SUPERVISED_PASSWORD_NOTE =
  "Standard error is not a terminal, so this password is now in the service's log (journalctl, kubectl logs):" +
  ' change it once signed in, or set TESSERA_ADMIN_USERNAME and TESSERA_ADMIN_PASSWORD before a first start.';

/** Where the users are: "PostgreSQL db.example:5432/tessera" (no credentials) or the data dir. */
function whereDataIs(config: Config): string {
  return config.databaseUrl ? `PostgreSQL ${postgresAddress(config.databaseUrl)}` : config.dataDir;
}

/**
 * Under npx (or an npm script without `exec`) the server's parent is npm's shell, which dies
 * on SIGTERM without passing it on: a process manager that stops npm would leave the server
 * running, orphaned. So, under npm, the parent's exit is taken as SIGTERM. (Elsewhere a
 * parent may exit on purpose — `nohup tessera serve &` — and the server stays.)
 */
function stopWhenNpmShellExits(stop: (why: string) => void): void {
  if (!process.env.npm_lifecycle_event) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    stop('npm (the parent process) exited');
  }, 500).unref();
}

/** The command that gives `username` a new password in this server's store (never with a secret in it). */
function setPasswordCommand(username: string, config: Config, databaseUrlFromEnv: boolean): string {
  const quoted = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;
  const store = !config.databaseUrl
    ? ` --data-dir ${quoted(config.dataDir)}`
    : databaseUrlFromEnv
      ? '' // the command reads the same variable
      : ' --database-url <the URL given to this server>';
  return `${cliName()} users set-password --username ${quoted(username)}${store}`;
}
