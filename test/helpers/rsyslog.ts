import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { issueAnySubject, makeCa } from './certificates.js';

/** Debian's rsyslog (apt-get install -y rsyslog rsyslog-gnutls). */
export const RSYSLOGD = process.env.RSYSLOGD_PATH ?? '/usr/sbin/rsyslogd';

/** A real syslog receiver (rsyslogd's imtcp) of a test's own, on a port of its own. */
export interface Collector {
  port: number;
  /** The CA the collector's certificate chains to (with `tls`). */
  caPem?: string;
  /** Each message received, in full as received (the RFC 5424 line, without its framing). */
  messages(): string[];
  /** The messages, once there are at least `count` of them. */
  waitFor(count: number, timeoutMs?: number): Promise<string[]>;
  /** Kills rsyslogd: the port refuses connections afterwards. */
  stop(): Promise<void>;
  /** Starts rsyslogd again, on the same port, appending to the same output file. */
  start(): Promise<void>;
  /** Stops it and removes its temporary folder. */
  close(): Promise<void>;
}

/**
 * rsyslogd in the foreground, unprivileged, with everything under a temporary folder (in
 * `options.dir`, else the system's): it loads only imtcp (octet-counted RFC 6587 and LF-framed
 * messages both), over TLS (RFC 5425, GnuTLS) with `tls`.
 */
export async function startCollector(options: { tls?: boolean; dir?: string } = {}): Promise<Collector> {
  if (!existsSync(RSYSLOGD)) throw new Error('rsyslogd is not installed: apt-get install -y rsyslog rsyslog-gnutls');
  const dir = mkdtempSync(path.join(options.dir ?? os.tmpdir(), 'tessera-rsyslog-'));
  const out = path.join(dir, 'messages.jsonl');
  const conf = path.join(dir, 'rsyslog.conf');
  const port = await freePort();
  let caPem: string | undefined;
  let tlsGlobals = '';
  if (options.tls) {
    const ca = makeCa(dir, 'collector-ca');
    // `issue` makes no subjectAltName; a client checking 127.0.0.1 needs one.
    const server = issueAnySubject(ca, 'collector', '/CN=127.0.0.1', [
      'basicConstraints = CA:FALSE',
      'extendedKeyUsage = serverAuth',
      'subjectAltName = IP:127.0.0.1, DNS:localhost',
    ]);
    caPem = ca.pem;
    tlsGlobals = ` defaultNetstreamDriver="gtls" defaultNetstreamDriverCAFile="${ca.certFile}" defaultNetstreamDriverCertFile="${server.certFile}" defaultNetstreamDriverKeyFile="${server.keyFile}"`;
  }
  writeFileSync(
    conf,
    [
      // Before imtcp is loaded, or its buffers keep the 8k default. Control characters and a
      // trailing LF are kept as received (rsyslog escapes the one as #012 and drops the other by
      // default), so that a test sees what was sent.
      `global(workDirectory="${dir}" maxMessageSize="64k" net.enableDNS="off"`,
      `  parser.escapeControlCharactersOnReceive="off" parser.dropTrailingLFOnReception="off"${tlsGlobals})`,
      options.tls
        ? 'module(load="imtcp" streamDriver.name="gtls" streamDriver.mode="1" streamDriver.authMode="anon")'
        : 'module(load="imtcp")',
      // A message may hold a newline: one JSON object a line keeps it whole ({"m":"…"}).
      'template(name="raw" type="list" option.jsonf="on") { property(name="rawmsg" format="jsonf" outname="m") }',
      'ruleset(name="r") {',
      `  action(type="omfile" file="${out}" template="raw" flushOnTXEnd="on" asyncWriting="off")`,
      '}',
      `input(type="imtcp" port="${port}" ruleset="r")`,
      '',
    ].join('\n'),
  );
  // A config error only shows on stderr, and rsyslogd runs on without that part: check first.
  try {
    execFileSync(RSYSLOGD, ['-N1', '-f', conf, '-iNONE'], { stdio: 'pipe' });
  } catch (e: any) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`rsyslogd refused its config:\n${e.stderr ?? e.message}`);
  }

  let child: ChildProcess | undefined;
  let stderr = '';
  const start = async () => {
    stderr = '';
    const c = spawn(RSYSLOGD, ['-n', '-f', conf, '-iNONE'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    const closed = once(c, 'close'); // exited, and its output read to the end
    c.stdout!.on('data', (d) => (stderr += d));
    c.stderr!.on('data', (d) => (stderr += d));
    const deadline = Date.now() + 10_000;
    while (!(await accepts(port))) {
      if (c.exitCode !== null || c.signalCode !== null || Date.now() > deadline) {
        c.kill('SIGKILL');
        await closed;
        child = undefined;
        throw new Error(`rsyslogd did not listen on ${port} (exit ${c.exitCode ?? c.signalCode}):\n${stderr}`);
      }
      await sleep(50);
    }
  };
  const stop = async () => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((resolve) => c.once('exit', resolve));
    c.kill('SIGTERM');
    const late = setTimeout(() => c.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(late);
  };
  // Whole lines only: rsyslog may be writing the last one as the file is read.
  const messages = () =>
    existsSync(out)
      ? readFileSync(out, 'utf8')
          .split('\n')
          .slice(0, -1)
          .filter(Boolean)
          .map((line) => JSON.parse(line).m as string)
      : [];

  await start().catch((e) => {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  });
  return {
    port,
    caPem,
    messages,
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const got = messages();
        if (got.length >= count) return got;
        if (Date.now() > deadline)
          throw new Error(
            `${got.length} of ${count} syslog messages in ${timeoutMs} ms: ${JSON.stringify(got)}\n${stderr}`,
          );
        await sleep(25);
      }
    },
    stop,
    start,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A port the system just handed out and nobody holds now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Whether a TCP connection to 127.0.0.1:port is accepted (it is closed at once). */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
