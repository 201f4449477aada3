import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_ARGON2_ENV, request, type ServeProcess, startServe } from '../helpers/cli.js';

const SECRET = 'Sekret-Passw0rd-4711';
const SECRET_B64 = Buffer.from(`root:${SECRET}`).toString('base64');

/** Sends raw bytes on a new connection and reads the answer until the server closes it. */
function raw(url: string, bytes: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let text = '';
    socket.on('data', (d) => (text += d));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n', 2);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
    socket.end(bytes);
  });
}

/**
 * What the HTTP parser and the router refuse, over real sockets against the real server at
 * --log-level trace: every answer in the one error shape, and no secret in any log line.
 */
describe('requests refused before any route runs', () => {
  let server: ServeProcess;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-raw-'));

  beforeAll(async () => {
    server = await startServe(['--no-tls', '--log-level', 'trace'], {
      ...FAST_ARGON2_ENV,
      TESSERA_DATA_DIR: dataDir,
      TESSERA_ADMIN_USERNAME: 'root',
      TESSERA_ADMIN_PASSWORD: SECRET,
    });
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const cases: [string, string, number, string][] = [
    [
      'a request line that is not HTTP',
      `GARBAGE ${SECRET}\r\nAuthorization: Basic ${SECRET_B64}\r\n\r\n`,
      400,
      'malformed_request',
    ],
    [
      'headers over the limit',
      `GET /healthz HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${SECRET_B64}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'headers_too_large',
    ],
    ['an HTTP/1.1 request without Host', 'GET /healthz HTTP/1.1\r\n\r\n', 400, 'malformed_request'],
    ['a URL the router cannot decode', `GET /v1/users/%zz${SECRET} HTTP/1.1\r\nHost: x\r\n\r\n`, 400, 'invalid_url'],
    [
      'an Expect header it cannot meet',
      'POST /v1/users/authorize HTTP/1.1\r\nHost: x\r\nExpect: x-teleport\r\nContent-Length: 2\r\n\r\n{}',
      417,
      'expectation_failed',
    ],
  ];
  for (const [what, bytes, status, code] of cases) {
    it(`answers ${what} with ${status} ${code}, in the error shape, and closes`, async () => {
      const res = await raw(server.url, bytes);
      expect(res.status).toBe(status);
      expect(res.headers.connection).toBe('close');
      expect(JSON.parse(res.body)).toEqual({ error_code: code, message: expect.any(String) });
      expect(res.body).not.toContain(SECRET);
    });
  }

  it('answers a 2 MB body with 413 in the error shape, never a reset, also 20 at once', async () => {
    const body = JSON.stringify({ username: 'root', password: 'x'.repeat(2 * 1024 * 1024) });
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () =>
        request(`${server.url}/v1/users/authorize`, { method: 'POST', body }).then(
          (r) => `${r.status} ${r.json?.error_code}`,
          (err: NodeJS.ErrnoException) => err.code ?? String(err),
        ),
      ),
    );
    expect(outcomes).toEqual(outcomes.map(() => '413 body_too_large'));
  });

  it('writes no password, credential or query value to the log, even at trace', async () => {
    await request(`${server.url}/v1/users/authorize?password=${SECRET}`, {
      method: 'POST',
      body: JSON.stringify({ username: 'root', password: SECRET }),
    });
    await request(`${server.url}/v1/users/authorize`, {
      method: 'POST',
      headers: { authorization: `Basic ${SECRET_B64}` },
    });
    const invalid = await request(`${server.url}/v1/users/authorize`, {
      method: 'POST',
      body: JSON.stringify({ username: 'root', password: SECRET, ttl: 'soon' }),
    });
    expect(invalid.json).toEqual({ error_code: 'invalid_request', message: 'ttl must be a whole number' });
    await raw(
      server.url,
      `POST /v1/users/authorize HTTP/1.1\r\nAuthorization: Basic ${SECRET_B64}\r\nContent-Length: nope\r\n\r\n{"password":"${SECRET}"}`,
    );
    await new Promise((r) => setTimeout(r, 300)); // the log lines are written
    const log = server.stdout();
    expect(log).toContain('"client error"'); // the refused packets were logged, as debug lines
    expect(log).not.toContain(SECRET);
    expect(log).not.toContain(SECRET_B64);
    expect(log).not.toContain('rawPacket'); // the request's bytes, as a JSON array of numbers
  });
});
