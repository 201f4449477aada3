import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { makeCa } from '../helpers/certificates.js';
import { startCollector } from '../helpers/rsyslog.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';

/** The test helpers' receivers, proven against what a SIEM sender would send them. */

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tessera-collectors-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** RFC 6587 octet counting: the length in bytes (not characters), a space, the message. */
const frame = (message: string) => `${Buffer.byteLength(message)} ${message}`;

/** Writes the frames on one connection and waits until it is closed. */
function send(socket: net.Socket, messages: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.once('close', () => resolve());
    socket.end(messages.map(frame).join(''));
  });
}

const connected = (socket: net.Socket, event: 'connect' | 'secureConnect') =>
  new Promise<net.Socket>((resolve, reject) => {
    socket.once(event, () => resolve(socket));
    socket.once('error', reject);
  });

const accent = '<110>1 2024-05-01T12:00:00.000Z host tessera - login - user josé signed in: café é';
const newline = '<110>1 2024-05-01T12:00:01.000Z host tessera - login - first line\nsecond line';
/** Longer than rsyslog's default 8k limit, which would cut it short. */
const later = `<110>1 2024-05-01T12:00:02.000Z host tessera - login - after a restart ${'x'.repeat(20_000)}`;

describe('rsyslog collector over TCP', () => {
  it('receives octet-counted frames exactly, refuses when stopped, and starts again on the same port', async () => {
    const collector = await startCollector({ dir: tempDir() });
    try {
      await send(await connected(net.connect(collector.port, '127.0.0.1'), 'connect'), [accent, newline]);
      expect(await collector.waitFor(2)).toEqual([accent, newline]);

      await collector.stop();
      await expect(connected(net.connect(collector.port, '127.0.0.1'), 'connect')).rejects.toMatchObject({
        code: 'ECONNREFUSED',
      });

      await collector.start();
      await send(await connected(net.connect(collector.port, '127.0.0.1'), 'connect'), [later]);
      expect(await collector.waitFor(3)).toEqual([accent, newline, later]);
    } finally {
      await collector.close();
    }
  });
});

describe('rsyslog collector over TLS', () => {
  it('is trusted through its CA for 127.0.0.1, and not through another', async () => {
    const dir = tempDir();
    const collector = await startCollector({ tls: true, dir });
    try {
      expect(collector.caPem).toContain('BEGIN CERTIFICATE');
      // No servername: Node checks the certificate against the IP address, 127.0.0.1.
      const socket = tls.connect({ host: '127.0.0.1', port: collector.port, ca: collector.caPem });
      await send(await connected(socket, 'secureConnect'), [accent]);
      expect(await collector.waitFor(1)).toEqual([accent]);

      const other = makeCa(dir, 'other-ca');
      const refused = tls.connect({ host: '127.0.0.1', port: collector.port, ca: other.pem });
      await expect(connected(refused, 'secureConnect')).rejects.toMatchObject({
        code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      });
      refused.destroy();
    } finally {
      await collector.close();
    }
  });
});

describe('webhook receiver', () => {
  /** A POST trusting only `ca`; the status it was answered. */
  const post = (url: string, ca: string, body: string) =>
    new Promise<number>((resolve, reject) => {
      const req = https.request(url, { method: 'POST', ca, headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
      req.end(body);
    });

  it('records each POST and answers the status it is told to fail with', async () => {
    const receiver = await startWebhookReceiver(tempDir());
    try {
      expect(receiver.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/hook$/);
      expect(await post(receiver.url, receiver.caPem, '{"n":1}')).toBe(200);
      receiver.failWith(503);
      expect(await post(receiver.url, receiver.caPem, '{"n":2}')).toBe(503);
      receiver.failWith(null);
      expect(await post(receiver.url, receiver.caPem, '{"n":3}')).toBe(200);
      await receiver.waitFor(() => receiver.requests.length === 3);
      expect(receiver.requests.map((r) => r.body)).toEqual(['{"n":1}', '{"n":2}', '{"n":3}']);
      expect(receiver.requests[0]!.headers['content-type']).toBe('application/json');
    } finally {
      await receiver.close();
    }
  });
});
