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
  code?: string;
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
    .option(
      '--code <code>',
      "a user with a second factor: the authenticator app's code now, or a recovery code (else the CLI asks for it)",
    )
    .addHelpText(
      'after',
      '\nExamples:\n  TOKEN=$(tessera token --username admin@tessera.local --ca data/tls/cert.pem --ttl 600)\n' +
        '  TOKEN=$(tessera token --username ops --ca data/tls/cert.pem --password-stdin --code 123456 < pw.txt)   # a user with a second factor',
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
      if (status === 401 && json.error_code === 'mfa_required' && typeof json.mfa_token === 'string') {
        const answer = o.code ?? (await readCode());
        // Letters: a recovery code (xxxx-xxxx-xxxx); digits: the authenticator app's.
        const second = await requestJson(
          'POST',
          new URL('/v1/users/authorize/mfa', o.url),
          { mfa_token: json.mfa_token, ...(/[a-z]/i.test(answer) ? { recovery_code: answer } : { code: answer }) },
          {},
          o,
        );
        if (second.status !== 200 || typeof second.json.access_token !== 'string')
          throw new CliError(
            `the server refused the second factor (${second.status} ${second.json.error_code ?? ''}): ${second.json.message ?? 'no message'}`,
          );
        process.stdout.write(`${second.json.access_token}\n`);
        return;
      }
      if (status !== 200 || typeof json.access_token !== 'string') {
        throw new CliError(`the server refused (${status} ${json.error_code ?? ''}): ${json.message ?? 'no message'}`);
      }
      process.stdout.write(`${json.access_token}\n`);
    });
}

/** The second factor asked at the terminal (a code changes every 30 s: never read from a file). */
async function readCode(): Promise<string> {
  if (!process.stdin.isTTY)
    throw new CliError('this user has a second factor: give the code with --code (no terminal to ask for it)');
  const code = await readPassword({ prompt: 'Code from your authenticator app (or a recovery code): ' });
  if (!code.trim()) throw new CliError('no code given');
  return code.trim();
}
