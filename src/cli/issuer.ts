import { Command, InvalidArgumentError } from 'commander';
import { MOVE_OVERLAP_MS, moveIssuer, readIssuer } from '../tokens/store-issuer.js';
import { addStoreOptions, type SettingOptions } from './options.js';
import { CLI_CONTEXT, withStore } from './with-store.js';

/** An issuer as nodes name it: a URL without its trailing slashes (as --public-url), or any other string (as --issuer). */
function issuerArg(value: string): string {
  if (!/^\S+$/.test(value)) throw new InvalidArgumentError('an issuer has no spaces');
  return /^https?:\/\//.test(value) ? value.replace(/\/+$/, '') : value;
}

function seconds(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 30 * 86_400)
    throw new InvalidArgumentError('must be 0 to 2592000 seconds');
  return Number(value);
}

const at = (ms: number) => new Date(ms).toISOString();

function issuerShowCommand(): Command {
  return addStoreOptions(new Command('show'))
    .description("Print the store's issuer, and the one it moved from while tokens of that one are accepted")
    .action(async (o: SettingOptions) => {
      const { current, previous } = await withStore(o, (t) => readIssuer(t.db));
      process.stdout.write(`${current ?? '(none yet: the first node to start records its own)'}\n`);
      if (previous && previous.until > Date.now())
        process.stderr.write(`Moved from ${previous.issuer}, accepted until ${at(previous.until)}\n`);
    });
}

function issuerMoveCommand(): Command {
  return addStoreOptions(new Command('move'))
    .description("Move the store's tokens to another issuer (a new public URL), for every node at once")
    .argument('<issuer>', 'the new issuer: the public URL the nodes will be reached at (or their --issuer)', issuerArg)
    .option('--overlap <seconds>', 'how long tokens of the old issuer stay accepted', seconds, MOVE_OVERLAP_MS / 1000)
    .addHelpText(
      'after',
      `
Within a second every running node accepts tokens of the new issuer as well as the old one;
the old one stays accepted for --overlap (a day: the longest a token lives). Restart each
node with --public-url <issuer> (or --issuer) within that time: a node started with the old
one after it is refused, as is one started with any other.

  tessera issuer move https://auth.example.com --database-url postgres://tessera@db/tessera`,
    )
    .action(async (to: string, o: SettingOptions & { overlap: number }) => {
      const { before, after } = await withStore(o, async (t) => {
        const before = (await readIssuer(t.db)).current;
        if (before === to) return { before };
        const after = await moveIssuer(t.db, to, o.overlap * 1000, t.clock);
        t.audit.record(CLI_CONTEXT, {
          event: 'issuer_move',
          outcome: 'success',
          target: 'issuer',
          changes: ['issuer'],
          reason: `from ${before ?? '(none)'} to ${to}`,
        });
        return { before, after };
      });
      if (!after) {
        process.stderr.write(`The store's tokens are issued as ${to} already: nothing changed\n`);
        return;
      }
      const old = after.previous ? `; tokens of ${before} are accepted until ${at(after.previous.until)}` : '';
      process.stderr.write(
        `The store's tokens are now issued as ${to}${old}. Restart each node with --public-url ${to} (or --issuer ${to})\n`,
      );
    });
}

export function issuerCommand(): Command {
  return new Command('issuer')
    .description(
      "The issuer (iss) of the store's tokens: show it, or move it to a new public URL (works while servers run)",
    )
    .addCommand(issuerShowCommand())
    .addCommand(issuerMoveCommand());
}
