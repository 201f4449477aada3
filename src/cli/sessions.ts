import { Command } from 'commander';
import { toSessionView } from '../sessions/session.js';
import { CliError } from './cli-error.js';
import { addStoreOptions, type SettingOptions } from './options.js';
import { printTable } from './table.js';
import { CLI_CONTEXT, findUserOrFail, withStore } from './with-store.js';

function listCommand(): Command {
  return addStoreOptions(new Command('list'))
    .description("A user's live sessions, newest first: where from, since when, until when")
    .requiredOption('--username <login>', 'the user (its name or email)')
    .option('--json', 'the sessions as JSON, as GET /v1/users/{uid}/sessions answers them')
    .action(async (o: SettingOptions & { username: string; json?: boolean }) => {
      const sessions = await withStore(o, async (t) =>
        (await t.sessions.list(null, (await findUserOrFail(t, o.username)).uid)).map((s) => toSessionView(s)),
      );
      if (o.json) {
        process.stdout.write(`${JSON.stringify(sessions, null, 2)}\n`);
        return;
      }
      if (sessions.length === 0) {
        process.stderr.write(`${o.username} has no live session\n`);
        return;
      }
      const rows = [
        ['SID', 'REALM', 'FROM', 'STARTED', 'LAST REFRESH', 'EXPIRES', 'CLIENT'],
        ...sessions.map((s) => [
          s.sid,
          s.realm + (s.console ? ' (console)' : ''),
          s.client_ip || '-',
          s.started,
          s.last_refreshed,
          s.expires,
          s.user_agent || '-',
        ]),
      ];
      printTable(rows);
    });
}

function endCommand(): Command {
  return addStoreOptions(new Command('end'))
    .description(
      'End one session of a user (--sid) or all of them (--all): their tokens are refused on every node within a second and cannot be refreshed; the password stays',
    )
    .requiredOption('--username <login>', 'the user (its name or email)')
    .option('--sid <sid>', 'the session (`tessera sessions list` shows them)')
    .option('--all', 'every session of the user')
    .action(async (o: SettingOptions & { username: string; sid?: string; all?: boolean }) => {
      if ((o.sid === undefined) === (o.all !== true)) throw new CliError('give --sid SID or --all (one of them)');
      const said = await withStore(o, async (t) => {
        const user = await findUserOrFail(t, o.username);
        if (o.sid !== undefined) {
          await t.sessions.end(null, user.uid, o.sid, CLI_CONTEXT);
          return `Ended session ${o.sid} of ${user.username}`;
        }
        return `Ended ${await t.sessions.endAllOf(null, user.uid, CLI_CONTEXT)} sessions of ${user.username} (its tokens too; its password is unchanged)`;
      });
      process.stderr.write(`${said}\n`);
    });
}

function endAllCommand(): Command {
  return addStoreOptions(new Command('end-all'))
    .description(
      'End every session of every user (after a leak): every token issued until now is refused on every node within a second; each user logs in again',
    )
    .requiredOption('--yes', 'say that you mean it')
    .action(async (o: SettingOptions) => {
      const ended = await withStore(o, (t) => t.sessions.endEverySession(null, CLI_CONTEXT));
      process.stderr.write(
        `Ended every session (${ended} live): every token issued until now is refused; Basic credentials and new logins work\n`,
      );
    });
}

export function sessionsCommand(): Command {
  return new Command('sessions')
    .description(
      'See and end sessions (one for each login, with its refreshes), on the store directly (works while the server runs)',
    )
    .addCommand(listCommand())
    .addCommand(endCommand())
    .addCommand(endAllCommand())
    .addHelpText(
      'after',
      `
Examples:
  tessera sessions list --username ops@example.com
  tessera sessions end --username ops@example.com --sid 3q2-7wEjZbJ0tXn1vT1Qqw
  tessera sessions end --username ops@example.com --all     # a stolen laptop: the password stays
  tessera sessions end-all --yes                            # the worst day`,
    );
}
