import { Command, Option } from 'commander';
import { ROLES } from '../users/user.js';
import { addHashOptions, addStoreOptions, type SettingOptions } from './options.js';
import { readPassword } from './read-password.js';
import { CLI_CONTEXT, withStore } from './with-store.js';

export function usersAddCommand(): Command {
  return addHashOptions(addStoreOptions(new Command('add')))
    .description('Add a user to the store (works while the server runs)')
    .requiredOption('--username <name>', 'login name, unique regardless of case')
    .addOption(new Option('--role <role>', 'what the user may do').choices(ROLES).default('none'))
    .option('--name <name>', 'display name')
    .option('--password-stdin', 'read the password from standard input instead of a prompt')
    .addHelpText('after', '\nExample:\n  printf %s "$PW" | tessera users add --username ops@example.com --role admin --password-stdin')
    .action(async (o: SettingOptions & { username: string; role: string; name?: string; passwordStdin?: boolean }) => {
      const password = await readPassword({ stdin: o.passwordStdin, prompt: `Password for ${o.username}: `, confirm: true });
      const user = await withStore(o, (t) =>
        t.accounts.create(null, { username: o.username, password, role: o.role, name: o.name }, CLI_CONTEXT),
      );
      process.stderr.write(`Added ${user.username} (uid ${user.uid}, role ${user.role})\n`);
    });
}
