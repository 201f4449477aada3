import { createHmac } from 'node:crypto';
import https from 'node:https';
import type { SiemEvent } from '../siem-event.js';
import { SEND_MS, type Transport } from './transport.js';

/** The header a receiver checks: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export const SIGNATURE_HEADER = 'tessera-signature';

/** The signature of a body sent at `t`: what a receiver computes with its copy of the secret and compares. */
export const signatureOf = (secret: string, t: number, body: string) =>
  createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');

/**
 * Each batch as one HTTPS POST of a JSON array, signed with an HMAC of the operator's secret and
 * the time (a receiver refuses an old one: no replay). Delivered when the receiver answers 2xx;
 * anything else, or no answer, is a failure and the batch is sent again later.
 */
export class WebhookTransport implements Transport {
  constructor(
    private readonly url: string,
    private readonly secret: string,
    private readonly bodyOf: (event: SiemEvent) => unknown,
    private readonly clock: () => number,
    /** PEM: what the receiver's certificate must chain to (the system's CAs when absent). */
    private readonly ca?: string,
  ) {}

  send(events: readonly SiemEvent[]): Promise<void> {
    const body = JSON.stringify(events.map(this.bodyOf));
    const t = Math.floor(this.clock() / 1000);
    return new Promise<void>((resolve, reject) => {
      const request = https.request(
        this.url,
        {
          method: 'POST',
          timeout: SEND_MS,
          ...(this.ca && { ca: this.ca }),
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'user-agent': 'Tessera',
            [SIGNATURE_HEADER]: `t=${t},v1=${signatureOf(this.secret, t, body)}`,
          },
        },
        (answer) => {
          answer.resume();
          answer.once('end', () => {
            const status = answer.statusCode ?? 0;
            if (status >= 200 && status <= 299) resolve();
            else reject(new Error(`the webhook answered ${status}`));
          });
          answer.once('error', reject);
        },
      );
      // The whole exchange within SEND_MS (the socket's timeout counts only silence: a trickle would outlive it).
      const deadline = setTimeout(() => request.destroy(new Error(`no answer within ${SEND_MS / 1000} s`)), SEND_MS);
      request.once('close', () => clearTimeout(deadline));
      request.once('timeout', () => request.destroy(new Error(`no answer within ${SEND_MS / 1000} s`)));
      request.once('error', reject);
      request.end(body);
    });
  }

  async close(): Promise<void> {}
}
