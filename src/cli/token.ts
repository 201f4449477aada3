import { Command, InvalidArgumentError, Option } from 'commander';
import { CliError } from './cli-error.js';
import { readPassword } from './read-password.js';
import { addServerOptions, requestJson } from './request-json.js';

interface TokenOptions {
  url: string;
  username: string;
  ttl?: number;
  apiLine: '7.22' | '7.4';
  insecure?: boolean;
  ca?: string;
  passwordStdin?: boolean;
}

function ttl(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 86_400) throw new InvalidArgumentError('must be 1 to 86400 seconds');
  return n;
}

export function tokenCommand(): Command {
  return addServerOptions(new Command('token'))
    .description('Ask a running Tessera for a token and print it')
    .requiredOption('--username <name>', 'who logs in')
    .option('--ttl <seconds>', 'token lifetime, 1 to 86400 (server default 300)', ttl)
    .addOption(
      new Option('--api-line <line>', 'send credentials as 7.22 does (Basic header) or as 7.4 does (JSON body)')
        .choices(['7.22', '7.4'])
        .default('7.22'),
    )
    .option('--password-stdin', 'read the password from standard input instead of a prompt')
    .addHelpText(
      'after',
      '\nExample:\n  TOKEN=$(tessera token --username admin@tessera.local --ca data/tls/cert.pem --ttl 600)',
    )
    .action(async (o: TokenOptions) => {
      const password = await readPassword({ stdin: o.passwordStdin, prompt: `Password for ${o.username}: ` });
      const url = new URL('/v1/users/authorize', o.url);
      const ttlField = o.ttl === undefined ? {} : { ttl: o.ttl };
      const { status, json } =
        o.apiLine === '7.4'
          ? await requestJson('POST', url, { username: o.username, password, ...ttlField }, {}, o)
          : await requestJson(
              'POST',
              url,
              o.ttl === undefined ? undefined : ttlField,
              { authorization: `Basic ${Buffer.from(`${o.username}:${password}`, 'utf8').toString('base64')}` },
              o,
            );
      if (status !== 200 || typeof json.access_token !== 'string') {
        throw new CliError(`the server refused (${status} ${json.error_code ?? ''}): ${json.message ?? 'no message'}`);
      }
      process.stdout.write(`${json.access_token}\n`);
    });
}
