import { closeSync, constants, existsSync, mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { CLI_CONTEXT } from '../audit/audit-log.js';
import type { Config } from '../config/config.js';
import { SQLITE_FILE } from '../store/database.js';
import { type Accounts, openAccounts } from '../tessera.js';
import { atomically } from '../unit-of-work.js';
import type { User } from '../users/user.js';
import { CliError } from './cli-error.js';
import { cliName } from './cli-name.js';
import { configFromOptions, type SettingOptions } from './options.js';

export { CLI_CONTEXT };

/**
 * Runs `fn` on the local store and closes it, whatever happens. The CLI's audit lines go
 * to `<data-dir>/audit.log`, so that its output stays readable. A command is one unit of work
 * (its change and the events it records for the SIEM sinks commit together), unless it says
 * `{ unit: false }` and makes its own (an import: one a user).
 */
export async function withStore<T>(
  options: SettingOptions,
  fn: (accounts: Accounts) => Promise<T>,
  { unit = true }: { unit?: boolean } = {},
): Promise<T> {
  const config = storeConfig(options);
  const audit = auditFile(config.dataDir);
  const accounts = await openAccounts(config, { logger: pino({}, audit) });
  try {
    return await (unit ? atomically(() => fn(accounts)) : fn(accounts));
  } finally {
    await accounts.close();
    audit.close();
  }
}

/**
 * `<data-dir>/audit.log`, opened at its first line (a command that records nothing, a list, leaves
 * no empty file), never through a link. A line that cannot be written is said on standard error:
 * the change it records has committed by then, and the event log in the store has it.
 */
function auditFile(dataDir: string): { write(line: string): void; close(): void } {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, 'audit.log');
  let fd: number | undefined;
  let failed = false;
  return {
    write(line) {
      try {
        fd ??= openSync(
          file,
          constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
          0o600,
        );
        writeSync(fd, line);
      } catch (err) {
        if (!failed)
          process.stderr.write(`${cliName()}: the audit line was not written to ${file}: ${(err as Error).message}\n`);
        failed = true;
      }
    },
    close: () => fd !== undefined && closeSync(fd),
  };
}

/**
 * The config of a command that opens a store. A --data-dir without a store is refused
 * (a typo would otherwise make a new, empty one and act on it) unless --create is given.
 */
export function storeConfig(options: SettingOptions): Config {
  const config = configFromOptions(options);
  const file = path.resolve(config.dataDir, SQLITE_FILE);
  if (!config.databaseUrl && options.create !== true && !existsSync(file)) {
    throw new CliError(
      `no store in ${path.dirname(file)} (it has no ${SQLITE_FILE}): give the --data-dir (TESSERA_DATA_DIR) that \`${cliName()} serve\` uses (a new store is made by serve, or with --create by users add, users import and keys)`,
    );
  }
  return config;
}

export async function findUserOrFail(accounts: Accounts, username: string): Promise<User> {
  const user = await accounts.users.findByUsername(username);
  if (!user) throw new CliError(`no user named "${username}"`);
  return user;
}
