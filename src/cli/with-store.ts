import path from 'node:path';
import { pino } from 'pino';
import { CLI_CONTEXT } from '../audit/audit-log.js';
import type { User } from '../users/user.js';
import { openTessera, type Tessera } from '../tessera.js';
import { CliError } from './cli-error.js';
import { configFromOptions, type StoreOptions } from './options.js';

export { CLI_CONTEXT };

/**
 * Runs `fn` on the local store and closes it, whatever happens. The CLI's audit lines go
 * to `<data-dir>/audit.log`, so that its output stays readable.
 */
export async function withStore<T>(options: StoreOptions, fn: (tessera: Tessera) => Promise<T>): Promise<T> {
  const config = configFromOptions(options);
  const logger = pino(
    pino.destination({ dest: path.join(config.dataDir, 'audit.log'), mkdir: true, sync: true, mode: 0o600 }),
  );
  const tessera = await openTessera(config, { logger });
  try {
    return await fn(tessera);
  } finally {
    await tessera.close();
  }
}

export async function findUserOrFail(tessera: Tessera, username: string): Promise<User> {
  const user = await tessera.users.findByUsername(username);
  if (!user) throw new CliError(`no user named "${username}"`);
  return user;
}
