import { Command } from 'commander';
import { CliError } from './cli-error.js';
import { readPassword, readStdinLines } from './read-password.js';
import { addServerOptions, requestJson, type TlsTrust } from './request-json.js';

interface PasswdOptions extends TlsTrust {
  url: string;
  username: string;
  passwordStdin?: boolean;
}

export function passwdCommand(): Command {
  return addServerOptions(new Command('passwd'))
    .description('Change your own password on a running Tessera — also the way out of an expired one')
    .requiredOption('--username <name>', 'whose password')
    .option('--password-stdin', 'read the current password and the new one from standard input, one a line')
    .addHelpText(
      'after',
      `
Asks for the current password and the new one (twice), hidden, and sends them to
PUT /v1/users/password. No token is needed, so this works when the password has expired.
The tokens issued before the change stop working.

Examples:
  tessera passwd --username ops@example.com --ca data/tls/cert.pem
  printf '%s\\n%s\\n' "$OLD" "$NEW" | tessera passwd --username ops@example.com -k --password-stdin`,
    )
    .action(async (o: PasswdOptions) => {
      const [current, next] = o.passwordStdin
        ? await readStdinLines(2)
        : [
            await readPassword({ prompt: `Current password of ${o.username}: ` }),
            await readPassword({ prompt: 'New password: ', confirm: true }),
          ];
      const body = { username: o.username, old_password: current, new_password: next };
      const { status, json } = await requestJson('PUT', new URL('/v1/users/password', o.url), body, {}, o);
      if (status !== 200)
        throw new CliError(`the server refused (${status} ${json.error_code ?? ''}): ${json.message ?? 'no message'}`);
      process.stderr.write(`The password of ${o.username} is changed; tokens issued before no longer work.\n`);
    });
}
