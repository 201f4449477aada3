import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { createRequire } from 'node:module';
import { type Command, Option } from 'commander';
import { CliError } from './cli-error.js';

export interface TlsTrust {
  insecure?: boolean;
  ca?: string;
}

/** The options of the commands that talk to a running server: where it is, and whom to trust. */
export function addServerOptions(command: Command): Command {
  return command
    .addOption(new Option('--url <url>', 'base URL of the server').env('TESSERA_URL').default('https://127.0.0.1:9443'))
    .option('--ca <file>', 'trust this PEM certificate (e.g. <data-dir>/tls/cert.pem)')
    .option('-k, --insecure', 'do not verify the server certificate');
}

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };
/** What the CLI's requests call themselves. */
export const USER_AGENT = `tessera-cli/${version}`;

/** Sends a JSON body and returns the status and parsed JSON answer. */
export function requestJson(
  method: 'POST' | 'PUT',
  url: URL,
  body: unknown,
  headers: Record<string, string>,
  trust: TlsTrust,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const payload = body === undefined ? '' : JSON.stringify(body);
  const secure = url.protocol === 'https:';
  const options: https.RequestOptions = {
    method,
    headers: {
      accept: 'application/json',
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(payload),
      // Named in the sessions it starts (tessera sessions list, the console's Sessions): not "—".
      'user-agent': USER_AGENT,
      ...headers,
    },
    timeout: 30_000,
    ...(secure && { rejectUnauthorized: !trust.insecure, ...(trust.ca && { ca: readFileSync(trust.ca) }) }),
  };
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : {} });
        } catch {
          reject(new CliError(`${url.origin} answered ${res.statusCode} with a body that is not JSON`));
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (err: NodeJS.ErrnoException) => {
      const hint = /self.signed|unable to verify|certificate/i.test(err.message)
        ? ' (a self-signed server? pass --ca <its cert.pem>, or -k (--insecure))'
        : '';
      reject(new CliError(`cannot reach ${url.origin}: ${err.message}${hint}`));
    });
    req.end(payload);
  });
}
