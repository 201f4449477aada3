import { createRequire } from 'node:module';
import { Command, type Option } from 'commander';
import { apiKeysCommand } from './api-keys.js';
import { cliName } from './cli-name.js';
import { eventsCommand } from './events.js';
import { issuerCommand } from './issuer.js';
import { keysCommand } from './keys.js';
import { passwdCommand } from './passwd.js';
import { rolesCommand } from './roles-list.js';
import { serveCommand } from './serve.js';
import { sessionsCommand } from './sessions.js';
import { tokenCommand } from './token.js';
import { usersAddCommand } from './users-add.js';
import { usersDeleteCommand } from './users-delete.js';
import { usersExpirePasswordCommand } from './users-expire-password.js';
import { usersImportCommand } from './users-import.js';
import { usersListCommand } from './users-list.js';
import { usersSetPasswordCommand } from './users-set-password.js';
import { usersUnlockCommand } from './users-unlock.js';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/** The whole CLI: every command with its options and help (main.ts parses the process's arguments with it). */
export function tesseraProgram(): Command {
  const program = new Command('tessera')
    .description('Tessera: users, passwords and JWTs for a cluster management REST API')
    .version(version)
    .showHelpAfterError('(add --help for usage)')
    .addHelpText(
      'after',
      `
From a checkout, run it as \`npm run tessera -- <command>\` (\`npm run -s …\` when its output is read
by \`$( … )\`), or \`node dist/cli/main.js <command>\`; it runs what \`npm install\` built and never builds.
Each command's --help has examples: npm run tessera -- users add --help`,
    )
    .addCommand(serveCommand())
    .addCommand(
      new Command('users')
        .description('Manage the users of the store, SQLite or PostgreSQL (works while the server runs)')
        .addCommand(usersAddCommand())
        .addCommand(usersListCommand())
        .addCommand(usersSetPasswordCommand())
        .addCommand(usersExpirePasswordCommand())
        .addCommand(usersUnlockCommand())
        .addCommand(usersDeleteCommand())
        .addCommand(usersImportCommand()),
    )
    .addCommand(sessionsCommand())
    .addCommand(apiKeysCommand())
    .addCommand(rolesCommand())
    .addCommand(keysCommand())
    .addCommand(issuerCommand())
    .addCommand(eventsCommand())
    .addCommand(tokenCommand())
    .addCommand(passwdCommand());
  unknownOptionsFirst(program);
  const name = cliName();
  if (name !== 'tessera') sayAs(program, name);
  return program;
}

/**
 * A required option is checked after the unknown ones (commander checks it first): `--user x`
 * for `--username x` is named as the unknown option it is, not
 * answered as a missing --username.
 */
function unknownOptionsFirst(program: Command): void {
  const required = new Map<Command, Option[]>();
  const walk = (command: Command) => {
    const options = command.options.filter((o) => o.mandatory);
    for (const option of options) option.mandatory = false;
    if (options.length > 0) required.set(command, options);
    for (const sub of command.commands) walk(sub);
  };
  walk(program);
  // preAction runs once commander has refused unknown options.
  program.hook('preAction', (_program, command) => {
    const missing = required.get(command)?.find((o) => command.getOptionValue(o.attributeName()) === undefined);
    if (missing)
      command.error(`error: required option '${missing.flags}' not specified`, {
        code: 'commander.missingMandatoryOptionValue',
      });
  });
}

/**
 * Help and usage lines name the command as it was run (`npm run tessera -- users add`), examples
 * too; inside `$(…)` with npm's `-s`, whose banner would otherwise be read with the output. Text that
 * names the npm form already is left as it is.
 */
function sayAs(command: Command, name: string): void {
  const quiet = name.replace(/^npm run /, 'npm run -s ');
  const renamed = (text: string) =>
    text.replace(/(^|[\s(`])(?<!run )tessera (?=[a-z[-])/gm, (_, before: string, at: number) =>
      before === '(' && text[at - 1] === '$' ? `${before}${quiet} ` : `${before}${name} `,
    );
  command.configureOutput({
    writeOut: (text) => process.stdout.write(renamed(text)),
    writeErr: (text) => process.stderr.write(renamed(text)),
    outputError: (text, write) => write(renamed(text) + npmHint(text)),
  });
  for (const sub of command.commands) sayAs(sub, name);
}

/**
 * npm reads the flags before `--` as its own (`npm start --listen 127.0.0.1:8080` hands the CLI
 * only `127.0.0.1:8080`): a stray argument under npm is most often that, and is said so.
 */
function npmHint(error: string): string {
  if (!/too many arguments/.test(error)) return '';
  const script = process.env.npm_lifecycle_event === 'start' ? 'npm start' : 'npm run tessera';
  return `(npm takes the flags before "--" as its own and passes on only their values: put "--" first, as in \`${script} -- --listen 127.0.0.1:8080\`)\n`;
}
