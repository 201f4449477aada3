import { Command, InvalidArgumentError, Option } from 'commander';
import { BUILT_IN_ROLE_OF_LEVEL } from '../access/built-in-roles.js';
import type { ApiKeyView } from '../api-keys/api-key-service.js';
import { ApiKeyNotFoundError, DomainError } from '../errors.js';
import type { Role } from '../roles/role.js';
import type { Accounts } from '../tessera.js';
import type { User } from '../users/user.js';
import { CliError } from './cli-error.js';
import { cliName } from './cli-name.js';
import { addStoreOptions, type SettingOptions } from './options.js';
import { printTable } from './table.js';
import { CLI_CONTEXT, findUserOrFail, withStore } from './with-store.js';

interface OwnerOptions extends SettingOptions {
  username?: string;
  user?: string;
}

interface CreateOptions extends OwnerOptions {
  name: string;
  days?: number;
  expires?: string;
  role?: string[];
  cidr?: string[];
}

/** The API's own bound on ttl_days; the cluster's api_key_max_lifetime_days is checked by the service. */
const MAX_DAYS = 3650;

function days(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_DAYS)
    throw new InvalidArgumentError(`must be a whole number of days, 1 to ${MAX_DAYS}`);
  return n;
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/** --username, or --user (the same): the key's owner, by name or email. */
function withOwner(command: Command): Command {
  return addStoreOptions(command)
    .option('--username <login>', "the key's owner (its name or email)")
    .option('--user <login>', 'the same as --username');
}

function ownerOf(o: OwnerOptions): string {
  if (o.username !== undefined && o.user !== undefined && o.username !== o.user)
    throw new CliError('give the owner once: --username or --user');
  const login = o.username ?? o.user;
  if (login === undefined) throw new CliError("give the key's owner: --username <name or email> (or --user)");
  return login;
}

/** The service speaks the API's field names; the CLI's user typed flags. */
function inCliTerms<T>(run: () => Promise<T>): Promise<T> {
  return run().catch((err: unknown) => {
    if (!(err instanceof DomainError) || err instanceof ApiKeyNotFoundError) throw err;
    const message = err.message
      .replace(/choose an earlier expires_at/, 'give fewer --days or an earlier --expires')
      .replace(/\bexpires_at\b/g, '--expires')
      .replace(/\ballowed_cidrs\b/g, '--cidr')
      .replace(/\brole_uids: /g, '--role: ')
      .replace(/^name must/, '--name must')
      .replace(/DELETE \/v1\/users\/\{uid\}\/api_keys\/\{key_id\}/, `\`${cliName()} api-keys revoke\``);
    throw new CliError(message, 1, err);
  });
}

/** A --role: a uid, a role's name (any case), or a management level (its built-in role, as `users add --role`). */
function roleUidOf(given: string, roles: Role[]): number {
  if (/^\d{1,9}$/.test(given)) return Number(given);
  const named = roles.find((r) => r.name.toLowerCase() === given.trim().toLowerCase());
  if (named) return named.uid;
  const level = BUILT_IN_ROLE_OF_LEVEL[given as keyof typeof BUILT_IN_ROLE_OF_LEVEL];
  if (level !== undefined) return level;
  throw new CliError(`no role named "${given}" (\`${cliName()} roles list\` shows them; --role takes a uid or a name)`);
}

function createCommand(): Command {
  return withOwner(new Command('create'))
    .description(
      'Make an API key for a user: the key alone on standard output (shown this once), the rest on standard error',
    )
    .requiredOption('--name <what for>', 'what the key is for, 1 to 128 characters ("nightly backup")')
    .addOption(
      new Option('--days <n>', `it expires in n days (1 to ${MAX_DAYS}, within api_key_max_lifetime_days)`)
        .argParser(days)
        .conflicts('expires'),
    )
    .option('--expires <iso>', 'it expires then: an ISO 8601 time, "2027-01-31T00:00:00Z" (no zone: UTC)')
    .option(
      '--role <uid or name>',
      "a role the key acts with, one of its owner's (repeat it for more); none given: every role of its owner",
      collect,
    )
    .option('--cidr <range>', 'a client address range it is taken from (repeat it); none given: any', collect)
    .addHelpText(
      'after',
      `
Give an expiry: --days or --expires, one of them.

Examples:
  KEY=$(tessera api-keys create --username backup@example.com --name "nightly backup" --days 90)
  curl -H "Authorization: Bearer $KEY" https://tessera.example.com:9443/v1/users
  tessera api-keys create --username ci --name deploys --expires 2027-01-31 --role "DB Viewer" --cidr 10.0.0.0/8`,
    )
    .action(async (o: CreateOptions) => {
      const login = ownerOf(o);
      if (o.days === undefined && o.expires === undefined)
        throw new CliError('give the key an expiry: --days N or --expires <ISO 8601> (one of them)');
      const { user, made } = await withStore(o, async (t) => {
        const user = await findUserOrFail(t, login);
        const { role = [], cidr = [] } = o;
        const roles = role.length > 0 ? await t.roles.list() : [];
        const input = {
          name: o.name,
          ...(o.days !== undefined ? { ttl_days: o.days } : { expires_at: o.expires! }),
          ...(role.length > 0 && { role_uids: role.map((r) => roleUidOf(r, roles)) }),
          ...(cidr.length > 0 && { allowed_cidrs: cidr }),
        };
        return { user, made: await inCliTerms(() => t.apiKeys.create(null, user.uid, input, CLI_CONTEXT)) };
      });
      process.stdout.write(`${made.key}\n`);
      process.stderr.write(
        `Made API key ${made.key_id} of ${user.username} ("${made.name}"), prefix ${made.prefix}, expires ${made.expires}, ` +
          `roles ${made.role_uids?.join(',') ?? `all of ${user.username}'s`}, from ${made.allowed_cidrs?.join(', ') ?? 'any address'}\n` +
          'The key is shown this once, never again (only its hash is kept): store it now. Send it as "Authorization: Bearer <key>".\n',
      );
    });
}

function listCommand(): Command {
  return withOwner(new Command('list'))
    .description("A user's API keys, oldest first: never the key, only its prefix")
    .option('--json', 'the keys as JSON, as GET /v1/users/{uid}/api_keys answers them')
    .addHelpText('after', '\nExample:\n  tessera api-keys list --username backup@example.com')
    .action(async (o: OwnerOptions & { json?: boolean }) => {
      const login = ownerOf(o);
      const { user, keys } = await withStore(o, async (t) => {
        const user = await findUserOrFail(t, login);
        return { user, keys: await t.apiKeys.list(null, user.uid) };
      });
      if (o.json) {
        process.stdout.write(`${JSON.stringify(keys, null, 2)}\n`);
        return;
      }
      if (keys.length === 0) {
        process.stderr.write(`${user.username} has no API key\n`);
        return;
      }
      printTable([
        ['KEY_ID', 'NAME', 'PREFIX', 'ROLES', 'FROM', 'CREATED', 'EXPIRES', 'LAST USED'],
        ...keys.map((k: ApiKeyView) => [
          k.key_id,
          k.name,
          k.prefix,
          k.role_uids?.join(',') ?? 'all',
          k.allowed_cidrs?.join(',') ?? 'any',
          k.created,
          k.expires,
          k.last_used ?? '-',
        ]),
      ]);
    });
}

function revokeCommand(): Command {
  return withOwner(new Command('revoke'))
    .description(
      'Revoke a key of a user: refused at once (by a running server within a second), and the tokens issued for it end',
    )
    .argument('<key_id>', 'the key (`tessera api-keys list` shows them)')
    .addHelpText('after', '\nExample:\n  tessera api-keys revoke --username backup@example.com key_3q2x7wEjZbJ0tXn1v')
    .action(async (keyId: string, o: OwnerOptions) => {
      const login = ownerOf(o);
      const { user, key } = await withStore(o, async (t) => {
        const user = await findUserOrFail(t, login);
        const key = await revoked(t, user, keyId);
        return { user, key };
      });
      process.stderr.write(
        `Revoked API key ${key.key_id} of ${user.username} ("${key.name}", ${key.prefix}): it is refused from now on, and its tokens end\n`,
      );
    });
}

async function revoked(t: Accounts, user: User, keyId: string): Promise<ApiKeyView> {
  try {
    const key = await t.apiKeys.get(null, user.uid, keyId);
    await t.apiKeys.revoke(null, user.uid, keyId, CLI_CONTEXT);
    return key;
  } catch (err) {
    if (!(err instanceof ApiKeyNotFoundError)) throw err;
    throw new CliError(
      `${user.username} has no API key "${keyId}" (\`${cliName()} api-keys list --username ${user.username}\` shows its keys)`,
      1,
      err,
    );
  }
}

export function apiKeysCommand(): Command {
  return new Command('api-keys')
    .description(
      "Users' API keys for automation (tsr_…): make, list, revoke — on the store directly, no login (works while the server runs)",
    )
    .addCommand(createCommand())
    .addCommand(listCommand())
    .addCommand(revokeCommand())
    .addHelpText(
      'after',
      `
These open the store (--data-dir, TESSERA_DATA_DIR, or PostgreSQL), as \`tessera users\` and
\`tessera sessions\` do; a running server refuses a revoked key within a second.

Examples:
  KEY=$(tessera api-keys create --username backup@example.com --name "nightly backup" --days 90)
  tessera api-keys list --username backup@example.com
  tessera api-keys revoke --username backup@example.com key_3q2x7wEjZbJ0tXn1v`,
    );
}
