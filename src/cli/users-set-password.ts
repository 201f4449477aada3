import { Command } from 'commander';
import { validateNewPassword } from '../users/password-rules.js';
import { addStoreOptions, type StoreOptions } from './options.js';
import { readPassword } from './read-password.js';
import { findUserOrFail, withStore } from './with-store.js';

export function usersSetPasswordCommand(): Command {
  return addStoreOptions(new Command('set-password'))
    .description("Replace a user's password (also lifts a forced expiry)")
    .requiredOption('--username <name>', 'whose password')
    .option('--password-stdin', 'read the new password from standard input instead of a prompt')
    .action(async (o: StoreOptions & { username: string; passwordStdin?: boolean }) => {
      await withStore(o, async (t) => {
        const user = await findUserOrFail(t, o.username);
        const password = await readPassword({ stdin: o.passwordStdin, prompt: `New password for ${user.username}: `, confirm: true });
        validateNewPassword(password);
        await t.users.setPassword(user.uid, await t.hasher.hash(password), new Date());
      });
      process.stderr.write(`Password of ${o.username} replaced\n`);
    });
}
