import net from 'node:net';
import tls from 'node:tls';
import type { SiemEvent } from '../siem-event.js';
import { octetCounted, syslogMessageOf } from '../syslog-message.js';
import { SEND_MS, type Transport } from './transport.js';

export interface SyslogTarget {
  address: string;
  port: number;
  protocol: 'TCP' | 'TLS';
  /** PEM: what the collector's certificate must chain to (the system's CAs when absent). */
  ca?: string;
  hostname: string;
}

/**
 * RFC 5424 messages, octet-counted (RFC 6587), over TCP or TLS (RFC 5425). Syslog over TCP has no
 * acknowledgement, so each batch is one connection, ended by us and then by the collector: its
 * end says it read every byte before it. A batch the collector did not read to the end (it went
 * away in the middle) fails, and is sent again — receivers drop repeats by the event's id.
 */
export class SyslogTransport implements Transport {
  constructor(
    private readonly target: SyslogTarget,
    private readonly bodyOf: (event: SiemEvent) => string,
  ) {}

  send(events: readonly SiemEvent[]): Promise<void> {
    const header = { hostname: this.target.hostname };
    let text = '';
    for (const e of events) text += octetCounted(syslogMessageOf(this.bodyOf(e), e, header));
    const frames = Buffer.from(text, 'utf8');
    return new Promise<void>((resolve, reject) => {
      const { address: host, port } = this.target;
      const socket =
        this.target.protocol === 'TLS'
          ? tls.connect({ host, port, ...(this.target.ca && { ca: this.target.ca }), servername: sni(host) })
          : net.connect({ host, port });
      const fail = (err: Error) => {
        socket.destroy();
        reject(err);
      };
      socket.setTimeout(SEND_MS, () => fail(new Error(`no answer from ${host}:${port} within ${SEND_MS / 1000} s`)));
      socket.once('error', fail);
      socket.once(this.target.protocol === 'TLS' ? 'secureConnect' : 'connect', () => socket.end(frames));
      // A collector says nothing; what does (a web server's answer, a banner) is no collector of ours.
      socket.once('data', () => fail(new Error(`${host}:${port} answered: it is not a syslog collector`)));
      // Delivered once every byte left, and the collector then ended its side: it read ours to the end.
      let sent = false;
      socket.once('finish', () => (sent = true));
      socket.once('end', () => {
        if (!sent) return fail(new Error(`${host}:${port} closed the connection before the batch was sent`));
        socket.destroy();
        resolve();
      });
      socket.once('close', () => reject(new Error(`${host}:${port} closed the connection before reading the batch`)));
    });
  }

  async close(): Promise<void> {}
}

/** TLS's server name for a host name; none for an IP address (RFC 6066 forbids it). */
const sni = (host: string) => (net.isIP(host) ? undefined : host);
