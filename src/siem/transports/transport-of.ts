import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import type { Clock } from '../../clock.js';
import { ocsfOf } from '../ocsf.js';
import type { SiemEvent } from '../siem-event.js';
import type { SinkSettings } from '../siem-settings.js';
import { FileTransport } from './file-transport.js';
import { SyslogTransport } from './syslog-transport.js';
import type { Transport } from './transport.js';
import { WebhookTransport } from './webhook-transport.js';

const { version } = createRequire(import.meta.url)('../../../package.json') as { version: string };

/** The transport a sink's settings describe, writing its format. */
export function transportOf(sink: SinkSettings, clock: Clock, fileFolder: string): Transport {
  const bodyOf = (e: SiemEvent) => (sink.format === 'ocsf' ? ocsfOf(e, { version }) : e);
  const textOf = (e: SiemEvent) => JSON.stringify(bodyOf(e));
  switch (sink.type) {
    case 'syslog':
      return new SyslogTransport(
        {
          address: sink.address!,
          port: sink.port!,
          protocol: sink.protocol ?? 'TCP',
          ca: sink.ca_cert,
          hostname: hostname(),
        },
        textOf,
      );
    case 'webhook':
      return new WebhookTransport(sink.url!, sink.secret!, bodyOf, clock, sink.ca_cert);
    case 'file':
      return new FileTransport(fileFolder, sink.path!, textOf);
  }
}
