import { Command, Option } from 'commander';
import { BUILT_IN_ROLE_OF_LEVEL } from '../access/built-in-roles.js';
import { ROLES, type Role } from '../access/management.js';
import { InvalidRequestError } from '../errors.js';
import { addHashOptions, addStoreCreatingOptions, type SettingOptions } from './options.js';
import { readPassword } from './read-password.js';
import { CLI_CONTEXT, withStore } from './with-store.js';

interface AddOptions extends SettingOptions {
  username?: string;
  name?: string;
  email?: string;
  role?: Role;
  roleUid?: string[];
  passwordStdin?: boolean;
  certificateSubject?: string;
}

export function usersAddCommand(): Command {
  return addHashOptions(addStoreCreatingOptions(new Command('add')))
    .description('Add a user to the store (works while the server runs). It logs in with its name or its email.')
    .option('--name <name>', 'a login, unique regardless of case')
    .option('--email <address>', 'a login too, unique regardless of case')
    .option('--username <login>', 'shorthand: an address sets --email, anything else --name')
    .addOption(new Option('--role <role>', 'what the user may do').choices(ROLES))
    .option(
      '--role-uid <uid...>',
      'roles to give (uids from `tessera roles list`), beside or instead of --role (which is the built-in role of that level)',
    )
    .option('--password-stdin', 'read the password from standard input instead of a prompt')
    .option(
      '--certificate-subject <line>',
      'a user that logs in with a client certificate of this subject (RFC 2253, CN first: "CN=ops-bot,O=Example"), no password',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  printf %s "$PW" | tessera users add --email ops@example.com --role admin --password-stdin\n' +
        '  tessera users add --name vault --role-uid 7    # role 7: User Manager in a new store\n' +
        '  tessera users add --certificate-subject "CN=ops-bot,OU=automation,O=Example" --role cluster_member',
    )
    .action(async (o: AddOptions) => {
      const certificate = o.certificateSubject !== undefined;
      if (certificate && o.passwordStdin)
        throw new InvalidRequestError('A certificate user has no password: leave out --password-stdin');
      const login = o.name ?? o.email ?? o.username;
      if (login === undefined && !certificate)
        throw new InvalidRequestError('Give --name, --email or both (or --certificate-subject)');
      const roleUids = (o.roleUid ?? []).map((uid) => {
        if (!/^[0-9]{1,9}$/.test(uid)) throw new InvalidRequestError(`--role-uid takes whole numbers, not "${uid}"`);
        return Number(uid);
      });
      const secret = certificate
        ? { auth_method: 'certificate' as const, certificate_subject_line: o.certificateSubject }
        : {
            password: await readPassword({ stdin: o.passwordStdin, prompt: `Password for ${login}: `, confirm: true }),
          };
      const input = {
        username: o.username,
        name: o.name,
        email: o.email,
        // --role is the built-in role of its level, given beside any --role-uid; neither: none.
        role_uids: [
          ...roleUids,
          ...(o.role !== undefined || roleUids.length === 0 ? [BUILT_IN_ROLE_OF_LEVEL[o.role ?? 'none']] : []),
        ],
        ...secret,
      };
      const user = (await withStore(o, (t) => t.userCreation.create(null, input, CLI_CONTEXT)))!;
      process.stderr.write(
        `Added ${user.username} (uid ${user.uid}, role ${user.rights[0] ?? 'none'}${user.roleUids.length ? `, roles ${user.roleUids.join(', ')}` : ''})\n`,
      );
    });
}
