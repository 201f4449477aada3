import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { CliError } from './cli-error.js';

export interface TlsTrust {
  insecure?: boolean;
  ca?: string;
}

/** POSTs a JSON body and returns the status and parsed JSON answer. */
export function postJson(
  url: URL,
  body: unknown,
  headers: Record<string, string>,
  trust: TlsTrust,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const payload = body === undefined ? '' : JSON.stringify(body);
  const secure = url.protocol === 'https:';
  const options: https.RequestOptions = {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers },
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
        ? ' (a self-signed server? pass --ca <its cert.pem>, or --insecure)'
        : '';
      reject(new CliError(`cannot reach ${url.origin}: ${err.message}${hint}`));
    });
    req.end(payload);
  });
}
