import { Command } from 'commander';
import { addStoreOptions, type SettingOptions } from './options.js';
import { CLI_CONTEXT, findUserOrFail, withStore } from './with-store.js';

export function usersUnlockCommand(): Command {
  return addStoreOptions(new Command('unlock'))
    .description('Lift a lockout after too many failed logins')
    .requiredOption('--username <name>', 'who')
    .action(async (o: SettingOptions & { username: string }) => {
      await withStore(o, async (t) => {
        const user = await findUserOrFail(t, o.username);
        await t.userUnlock.unlock(null, user.uid, CLI_CONTEXT);
      });
      process.stderr.write(`Unlocked ${o.username}\n`);
    });
}
