import { Command } from 'commander';
import { addStoreOptions, type SettingOptions } from './options.js';
import { CLI_CONTEXT, findUserOrFail, withStore } from './with-store.js';

export function usersExpirePasswordCommand(): Command {
  return addStoreOptions(new Command('expire-password'))
    .description('Expire a user\'s password now: logins answer 401 "password_expired" until it is replaced')
    .requiredOption('--username <name>', 'whose password')
    .action(async (o: SettingOptions & { username: string }) => {
      await withStore(o, async (t) => {
        const user = await findUserOrFail(t, o.username);
        await t.passwordChanges.expire(null, user.uid, CLI_CONTEXT);
      });
      process.stderr.write(`Password of ${o.username} expired\n`);
    });
}
