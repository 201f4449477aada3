#!/usr/bin/env -S node --max-semi-space-size=2
// A 2 MiB young generation (Node's default is 16 MiB) keeps idle RSS ~18 MB lower; a
// service's requests make little garbage that lives long, so scavenges stay cheap.
import { createRequire } from 'node:module';
import { Command } from 'commander';
import { ConfigError } from '../config/config.js';
import { DomainError } from '../errors.js';
import { CliError } from './cli-error.js';
import { eventsCommand } from './events.js';
import { issuerCommand } from './issuer.js';
import { keysCommand } from './keys.js';
import { passwdCommand } from './passwd.js';
import { rolesCommand } from './roles-list.js';
import { serveCommand } from './serve.js';
import { sessionsCommand } from './sessions.js';
import { tokenCommand } from './token.js';
import { usersAddCommand } from './users-add.js';
import { usersDeleteCommand } from './users-delete.js';
import { usersExpirePasswordCommand } from './users-expire-password.js';
import { usersImportCommand } from './users-import.js';
import { usersListCommand } from './users-list.js';
import { usersSetPasswordCommand } from './users-set-password.js';
import { usersUnlockCommand } from './users-unlock.js';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

const program = new Command('tessera')
  .description('Tessera: users, passwords and JWTs for a cluster management REST API')
  .version(version)
  .showHelpAfterError('(add --help for usage)')
  .addHelpText(
    'after',
    `
From a checkout, run it as \`npm run tessera -- <command>\` (\`npm run -s …\` when its output is read
by \`$( … )\`), or \`node dist/cli/main.js <command>\`; it runs what \`npm install\` built and never builds.
Each command's --help has examples: npm run tessera -- users add --help`,
  )
  .addCommand(serveCommand())
  .addCommand(
    new Command('users')
      .description('Manage the users of the store, SQLite or PostgreSQL (works while the server runs)')
      .addCommand(usersAddCommand())
      .addCommand(usersListCommand())
      .addCommand(usersSetPasswordCommand())
      .addCommand(usersExpirePasswordCommand())
      .addCommand(usersUnlockCommand())
      .addCommand(usersDeleteCommand())
      .addCommand(usersImportCommand()),
  )
  .addCommand(sessionsCommand())
  .addCommand(rolesCommand())
  .addCommand(keysCommand())
  .addCommand(issuerCommand())
  .addCommand(eventsCommand())
  .addCommand(tokenCommand())
  .addCommand(passwdCommand());

/** Stacks are for `--log-level debug` (or TESSERA_LOG_LEVEL=debug); a user gets one line. */
const debug =
  /(^|\s)--log-level[= ](debug|trace)\b/.test(process.argv.join(' ')) ||
  /^(debug|trace)$/.test(process.env.TESSERA_LOG_LEVEL ?? '');

program.parseAsync().catch((err: unknown) => {
  const known = err instanceof CliError || err instanceof ConfigError || err instanceof DomainError;
  const message = known
    ? (err as Error).message
    : `${(err as Error)?.message ?? err} (add --log-level debug for the details)`;
  process.stderr.write(`tessera: ${message}\n`);
  const detail = err instanceof CliError ? err.explains : known ? undefined : err;
  if (debug && detail) process.stderr.write(`${(detail as Error).stack ?? detail}\n`);
  process.exit(err instanceof CliError ? err.exitCode : known ? 2 : 1);
});
