import { Command } from 'commander';
import { addHashOptions, addStoreOptions, type SettingOptions } from './options.js';
import { readPassword } from './read-password.js';
import { CLI_CONTEXT, findUserOrFail, withStore } from './with-store.js';

export function usersSetPasswordCommand(): Command {
  return addHashOptions(addStoreOptions(new Command('set-password')))
    .description(
      "Replace all of a user's passwords (also lifts an expiry and a lockout); its tokens end: it signs in again",
    )
    .requiredOption('--username <name>', 'whose password')
    .option('--password-stdin', 'read the new password from standard input instead of a prompt')
    .action(async (o: SettingOptions & { username: string; passwordStdin?: boolean }) => {
      await withStore(o, async (t) => {
        const user = await findUserOrFail(t, o.username);
        const password = await readPassword({
          stdin: o.passwordStdin,
          prompt: `New password for ${user.username}: `,
          confirm: true,
        });
        await t.passwordChanges.replace(null, user, password, CLI_CONTEXT);
      });
      process.stderr.write(`Password of ${o.username} replaced\n`);
    });
}
