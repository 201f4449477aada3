import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { hasPreHashed, type ImportLine, importUsers, readExport } from '../users/user-import.js';
import { CliError } from './cli-error.js';
import { addHashOptions, addStoreCreatingOptions, type SettingOptions } from './options.js';
import { withStore } from './with-store.js';

interface ImportCommandOptions extends SettingOptions {
  dryRun?: boolean;
  clusterName?: string;
  json?: boolean;
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    // Where, not what: the text around it may be a piece of a hash.
    const at = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new CliError(`${file} is not JSON${at ? ` (at character ${at})` : ''}`);
  }
}

/** One line for a person: what happened, to whom, and why. */
function describe(l: ImportLine): string {
  return [
    l.outcome.padEnd(12),
    `${l.kind} ${l.who}`,
    l.uid !== undefined ? `(uid ${l.uid})` : '',
    l.detail ? `— ${l.detail}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

export function usersImportCommand(): Command {
  return addHashOptions(addStoreCreatingOptions(new Command('import')))
    .description(
      "Move users in from a cluster of the product: its GET /v1/users (and GET /v1/roles), with each user's pre-hashed password",
    )
    .argument('<file>', 'a JSON file (- for standard input): the users array, or {"roles": [...], "users": [...]}')
    .option('--dry-run', 'check every user and role, write nothing')
    .option(
      '--cluster-name <name>',
      'the exporting cluster\'s name (its GET /v1/cluster "name"): the "clustername" its pre-hashed passwords were made with (default: this cluster\'s name)',
    )
    .option('--json', 'the report as JSON lines')
    .addHelpText(
      'after',
      `
A user's password is the product's pre-hashed one: "password" is the hex SHA-256 of
"username:clustername:password" and "password_hash_method" is 1 (objects/user.md). The
user logs in with its old password; that first login stores an argon2id hash instead, and
the pre-hashed one is gone. Certificate and SSO users come without a password.

Roles are matched by name (a missing one is made, with its uid when free); the users'
role_uids are the file's roles', so a user with role_uids needs the roles in the file.
A user whose name or email is here already is left as it is. Exit status 1 when one was refused.

Examples:
  tessera users import --dry-run --cluster-name cluster.example.com export.json
  jq -s '{roles: .[0], users: .[1]}' roles.json users.json | tessera users import --cluster-name cluster.example.com -`,
    )
    .action(async (file: string, o: ImportCommandOptions) => {
      const data = readJson(file);
      const lines = await withStore(
        o,
        async (t) => {
          const clusterName = o.clusterName ?? (await t.policy.get()).name;
          if (clusterName === '' && hasPreHashed(readExport(data).users)) {
            throw new CliError(
              'give --cluster-name: the name of the cluster the users come from (its GET /v1/cluster "name"), which their pre-hashed passwords were made with',
            );
          }
          return importUsers(t, data, { dryRun: o.dryRun === true, clusterName });
        },
        { unit: false },
      );
      for (const l of lines) process.stdout.write(`${o.json ? JSON.stringify(l) : describe(l)}\n`);
      const count = (outcome: ImportLine['outcome']) => lines.filter((l) => l.outcome === outcome).length;
      const users = lines.filter((l) => l.kind === 'user').length;
      const made = o.dryRun
        ? `${count('would create')} would be created (dry run: nothing written)`
        : `${count('created')} created`;
      const roles = lines.length - users;
      process.stderr.write(
        `${users} ${users === 1 ? 'user' : 'users'} and ${roles} ${roles === 1 ? 'role' : 'roles'} read: ${made}, ${count('exists')} here already, ${count('refused')} refused\n`,
      );
      if (count('refused') > 0) process.exitCode = 1;
    });
}
