import { Command } from 'commander';
import { addStoreOptions, type SettingOptions } from './options.js';
import { CLI_CONTEXT, findUserOrFail, withStore } from './with-store.js';

export function usersDeleteCommand(): Command {
  return addStoreOptions(new Command('delete'))
    .description('Delete a user (never the last admin)')
    .requiredOption('--username <name>', 'who')
    .action(async (o: SettingOptions & { username: string }) => {
      await withStore(o, async (t) => {
        const user = await findUserOrFail(t, o.username);
        await t.userDeletion.delete(null, user.uid, CLI_CONTEXT);
      });
      process.stderr.write(`Deleted ${o.username}\n`);
    });
}
