import { Command } from 'commander';
import { CliError } from './cli-error.js';
import { addStoreOptions, type StoreOptions } from './options.js';
import { findUserOrFail, withStore } from './with-store.js';

export function usersDeleteCommand(): Command {
  return addStoreOptions(new Command('delete'))
    .description('Delete a user (never the last admin)')
    .requiredOption('--username <name>', 'who')
    .action(async (o: StoreOptions & { username: string }) => {
      await withStore(o, async (t) => {
        const user = await findUserOrFail(t, o.username);
        if (user.role === 'admin' && (await t.users.list()).filter((u) => u.role === 'admin').length === 1) {
          throw new CliError(`${user.username} is the last admin; add another admin first`);
        }
        await t.users.delete(user.uid);
      });
      process.stderr.write(`Deleted ${o.username}\n`);
    });
}
