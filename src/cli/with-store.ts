import { openTessera, type Tessera } from '../tessera.js';
import { CliError } from './cli-error.js';
import { configFromOptions, type StoreOptions } from './options.js';

/** Runs `fn` on the local store and closes it, whatever happens. */
export async function withStore<T>(options: StoreOptions, fn: (tessera: Tessera) => Promise<T>): Promise<T> {
  const tessera = await openTessera(configFromOptions(options));
  try {
    return await fn(tessera);
  } finally {
    await tessera.close();
  }
}

export async function findUserOrFail(tessera: Tessera, username: string) {
  const user = await tessera.users.findByUsername(username);
  if (!user) throw new CliError(`no user named "${username}"`);
  return user;
}
