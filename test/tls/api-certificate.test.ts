import { execFileSync } from 'node:child_process';
import { randomBytes, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/audit/audit-log.js';
import { makeConfig, masterKeyBytes } from '../../src/config/config.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { KeySealer } from '../../src/tokens/key-sealer.js';
import { type ClientCertificate, intermediate, issue, makeCa, type TestCa } from '../helpers/certificates.js';
import { freshPostgres } from '../helpers/services.js';
import { FAST_ARGON2 } from '../helpers/test-tessera.js';

const PASSWORD = 'Api-certificate-admin-1';
const MASTER_KEY = randomBytes(32).toString('base64');
const dirs: string[] = [];
const tmp = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-api-cert-'));
  dirs.push(dir);
  return dir;
};

/** A real server (the CLI's serve, in this process) on a free port with TLS. */
function serve(extra: Parameters<typeof makeConfig>[0] = {}): Promise<RunningServer> {
  const config = makeConfig({
    argon2: FAST_ARGON2,
    dataDir: tmp(),
    listen: { host: '127.0.0.1', port: 0 },
    metricsListen: null,
    logLevel: 'silent',
    masterKey: MASTER_KEY,
    ...extra,
  });
  return startServer(config, { username: 'admin', password: PASSWORD });
}

const auth = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;

/** One request over HTTPS (its own connection unless an agent keeps one), with what the connection's peer certificate was. */
function send(
  server: RunningServer,
  method: string,
  route: string,
  body?: unknown,
  agent: https.Agent | false = false,
): Promise<{ status: number; body: Record<string, unknown>; fingerprint: string; localPort: number }> {
  const url = new URL(route, server.url);
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      {
        method,
        agent,
        rejectUnauthorized: false,
        headers: { authorization: auth, 'content-type': 'application/json' },
      },
      (res) => {
        const socket = res.socket as tls.TLSSocket;
        const fingerprint = socket.getPeerCertificate().fingerprint256;
        const localPort = socket.localPort ?? 0;
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {}, fingerprint, localPort }),
        );
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** The certificate a new TLS connection is served (its SHA-256 fingerprint), or the error it was refused with. */
function served(server: RunningServer, options: tls.ConnectionOptions = {}): Promise<X509Certificate> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: hostname, port: Number(port), rejectUnauthorized: false, ...options }, () => {
      const raw = socket.getPeerCertificate().raw;
      socket.end();
      resolve(new X509Certificate(raw));
    });
    socket.on('error', reject);
  });
}

const fingerprintOf = (pem: string | Buffer) => new X509Certificate(pem).fingerprint256;
const body = (cert: string, key: string) => ({ certificates: [{ name: 'api', certificate: cert, key }] });

async function eventually(check: () => Promise<boolean>, ms = 4000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('not within the time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

let root: TestCa;
let leaf: ClientCertificate;
let other: ClientCertificate;
let inter: TestCa;
let chained: ClientCertificate;
let expired: ClientCertificate;
let early: ClientCertificate;

beforeAll(() => {
  const dir = tmp();
  root = makeCa(dir, 'api-root');
  leaf = issue(root, 'api-leaf', '/CN=localhost', { extensions: 'server' });
  other = issue(root, 'api-other', '/CN=other.example', { extensions: 'server' });
  inter = intermediate(root, dir, 'api-inter');
  chained = issue(inter, 'api-chained', '/CN=chained.example', { extensions: 'server', chain: [inter, root] });
  expired = issue(root, 'api-expired', '/CN=expired.example', {
    extensions: 'server',
    start: new Date(Date.now() - 3 * 86_400_000),
    end: new Date(Date.now() - 86_400_000),
  });
  early = issue(root, 'api-early', '/CN=early.example', {
    extensions: 'server',
    start: new Date(Date.now() + 86_400_000),
    end: new Date(Date.now() + 2 * 86_400_000),
  });
});

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("the REST API's own certificate (api): PUT, GET, DELETE refused, applied live", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serve();
  });
  afterAll(() => server.close());

  it('a PUT is served to new connections at once; a keep-alive connection keeps the old certificate', async () => {
    const started = fingerprintOf(server.tls!.cert);
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await send(server, 'GET', '/v1/cluster/certificates', undefined, agent);
      expect([first.status, first.fingerprint]).toEqual([200, started]);
      expect(fingerprintOf(first.body.api_cert as string)).toBe(started);
      expect(first.body).not.toHaveProperty('api_key');

      const put = await send(server, 'PUT', '/v1/cluster/certificates', body(leaf.pem, leaf.key.toString()));
      expect([put.status, put.body]).toEqual([200, {}]);

      expect((await served(server)).fingerprint256).toBe(fingerprintOf(leaf.pem));
      const again = await send(server, 'GET', '/v1/cluster/certificates', undefined, agent);
      expect(again.localPort).toBe(first.localPort); // the same connection…
      expect(again.fingerprint).toBe(started); // …with the certificate it was opened with
      expect(fingerprintOf(again.body.api_cert as string)).toBe(fingerprintOf(leaf.pem));
      expect(JSON.stringify(again.body)).not.toContain('PRIVATE KEY');
    } finally {
      agent.destroy();
    }
  });

  it('the key is sealed in the store, and no audit line carries it', async () => {
    const audited: string[] = [];
    server.tessera.events.on('audited', (record) => audited.push(JSON.stringify(record)));
    const res = await send(server, 'PUT', '/v1/cluster/update_cert', {
      name: 'api',
      certificate: chained.pem,
      key: chained.key.toString(),
    });
    expect(res.status).toBe(200);
    expect((await served(server)).fingerprint256).toBe(fingerprintOf(chained.pem));
    const row = await server.tessera.db
      .selectFrom('settings')
      .select('value')
      .where('key', '=', 'api_certificate')
      .executeTakeFirstOrThrow();
    const keyBody = chained.key.toString().split('\n')[1]!;
    expect(row.value).not.toContain(keyBody);
    expect(JSON.parse(row.value).key).toMatch(/^sealed\.v1\./);
    expect(audited.some((line) => line.includes('api_certificate_update'))).toBe(true);
    expect(audited.join('\n')).not.toContain(keyBody);
  });

  it.each([
    [
      'a key that is not the certificate’s',
      () => body(leaf.pem, other.key.toString()),
      400,
      "the key is not the certificate's",
    ],
    ['an expired certificate', () => body(expired.pem, expired.key.toString()), 406, 'expired'],
    ['a certificate not valid until tomorrow', () => body(early.pem, early.key.toString()), 400, 'not valid before'],
    ['garbage', () => body('not a certificate', 'not a key'), 400, 'PEM'],
    [
      'garbage as the key',
      () => body(leaf.pem, '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n'),
      400,
      'key cannot be read',
    ],
    ['no key', () => ({ certificates: [{ name: 'api', certificate: leaf.pem }] }), 400, 'private key'],
    [
      'a chain out of order',
      () =>
        body(
          `${chained.pem.split('-----END CERTIFICATE-----')[0]}-----END CERTIFICATE-----\n${root.pem}${inter.pem}`,
          chained.key.toString(),
        ),
      400,
      'out of order',
    ],
  ])('%s: refused, and nothing changes', async (_what, make, status, says) => {
    const before = (await served(server)).fingerprint256;
    const beforeGet = (await send(server, 'GET', '/v1/cluster/certificates')).body.api_cert;
    const res = await send(server, 'PUT', '/v1/cluster/certificates', make());
    expect([res.status, res.body.error_code]).toEqual([
      status,
      status === 406 ? 'expired_certificate' : 'invalid_certificate',
    ]);
    expect(res.body.message).toContain(says);
    expect(String(res.body.message)).not.toContain('PRIVATE KEY');
    expect((await served(server)).fingerprint256).toBe(before);
    expect((await send(server, 'GET', '/v1/cluster/certificates')).body.api_cert).toBe(beforeGet);
  });

  it('DELETE /v1/cluster/certificates/api: 403, a required certificate (replace it instead); the one served stays', async () => {
    const before = (await served(server)).fingerprint256;
    const res = await send(server, 'DELETE', '/v1/cluster/certificates/api');
    expect([res.status, res.body.error_code]).toEqual([403, 'delete_required_certificate_not_allowed']);
    expect(res.body.message).toContain('PUT /v1/cluster/certificates');
    expect((await served(server)).fingerprint256).toBe(before);
    const view = await send(server, 'GET', '/v1/cluster/certificates');
    expect(fingerprintOf(view.body.api_cert as string)).toBe(before);
  });

  it('min_control_TLS_version "1.3": a TLS 1.2 client is refused on new connections; "1.2" takes it again', async () => {
    expect((await served(server, { maxVersion: 'TLSv1.2' })).fingerprint256).toBeTruthy();
    const dry = await send(server, 'PUT', '/v1/cluster?dry_run', { min_control_TLS_version: '1.3' });
    expect([dry.status, dry.body.min_control_TLS_version]).toEqual([200, '1.3']);
    expect((await served(server, { maxVersion: 'TLSv1.2' })).fingerprint256).toBeTruthy();

    const put = await send(server, 'PUT', '/v1/cluster', { min_control_TLS_version: '1.3' });
    expect([put.status, put.body.min_control_TLS_version]).toEqual([200, '1.3']);
    await expect(served(server, { maxVersion: 'TLSv1.2' })).rejects.toThrow();
    expect((await served(server, { minVersion: 'TLSv1.3' })).fingerprint256).toBeTruthy();
    expect((await send(server, 'GET', '/v1/cluster')).body.min_control_TLS_version).toBe('1.3');
    const wrong = await send(server, 'PUT', '/v1/cluster', { min_control_TLS_version: '1.1' });
    expect([wrong.status, wrong.body.error_code]).toEqual([400, 'invalid_request']);

    expect((await send(server, 'PUT', '/v1/cluster', { min_control_TLS_version: '1.2' })).status).toBe(200);
    expect((await served(server, { maxVersion: 'TLSv1.2' })).fingerprint256).toBeTruthy();
  });

  it('control_cipher_suites: TLS 1.2 clients get only those ciphers on new connections; a list OpenSSL cannot read is 400', async () => {
    const aes128 = {
      maxVersion: 'TLSv1.2',
      ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256',
    } as const;
    const aes256 = {
      maxVersion: 'TLSv1.2',
      ciphers: 'ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384',
    } as const;
    expect((await served(server, aes128)).fingerprint256).toBeTruthy();
    const put = await send(server, 'PUT', '/v1/cluster', { control_cipher_suites: aes256.ciphers });
    expect([put.status, put.body.control_cipher_suites]).toEqual([200, aes256.ciphers]);
    await expect(served(server, aes128)).rejects.toThrow();
    expect((await served(server, aes256)).fingerprint256).toBeTruthy();
    expect((await served(server, { minVersion: 'TLSv1.3' })).fingerprint256).toBeTruthy(); // TLS 1.3's suites are OpenSSL's own
    const wrong = await send(server, 'PUT', '/v1/cluster', { control_cipher_suites: 'NO-SUCH-CIPHER' });
    expect([wrong.status, wrong.body.error_code]).toEqual([400, 'invalid_request']);
    expect(wrong.body.message).toMatch(/^control_cipher_suites: no cipher of "NO-SUCH-CIPHER"/);
    expect((await send(server, 'PUT', '/v1/cluster', { control_cipher_suites: 'HIGH:!aNULL' })).status).toBe(200);
    expect((await served(server, aes128)).fingerprint256).toBeTruthy();
  });
});

describe('POST /v1/cluster/certificates/rotate', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serve();
  });
  afterAll(() => server.close());

  it("a new self-signed certificate with the same names while the one in use is self-made; an operator's: nothing with no body, 403 by name", async () => {
    const before = await served(server);
    const res = await send(server, 'POST', '/v1/cluster/certificates/rotate');
    expect([res.status, res.body]).toEqual([200, {}]);
    const after = await served(server);
    expect(after.fingerprint256).not.toBe(before.fingerprint256);
    expect(after.publicKey.export({ format: 'der', type: 'spki' })).not.toEqual(
      before.publicKey.export({ format: 'der', type: 'spki' }),
    );
    expect(after.issuer === after.subject && after.verify(after.publicKey)).toBe(true); // self-signed
    expect(after.subjectAltName).toBe(before.subjectAltName);
    expect(after.subject).toBe(before.subject);
    const days = (Date.parse(after.validTo) - Date.parse(after.validFrom)) / 86_400_000;
    expect(Math.round(days)).toBe(365);
    expect(fingerprintOf((await send(server, 'GET', '/v1/cluster/certificates')).body.api_cert as string)).toBe(
      after.fingerprint256,
    );
    // Rotated again: the one in use is Tessera's own.
    expect((await send(server, 'POST', '/v1/cluster/certificates/rotate', { name: 'api' })).status).toBe(200);
    expect((await served(server)).fingerprint256).not.toBe(after.fingerprint256);

    // One an operator gave is not rotated. The docs' request (no body: "all internal certificates")
    // finds no internal one: 200, nothing changed, and the audit line says so.
    expect((await send(server, 'PUT', '/v1/cluster/certificates', body(leaf.pem, leaf.key.toString()))).status).toBe(
      200,
    );
    const audited: AuditRecord[] = [];
    server.tessera.events.on('audited', (record) => audited.push(record));
    const all = await send(server, 'POST', '/v1/cluster/certificates/rotate');
    expect([all.status, all.body]).toEqual([200, {}]);
    expect((await served(server)).fingerprint256).toBe(fingerprintOf(leaf.pem));
    expect(fingerprintOf((await send(server, 'GET', '/v1/cluster/certificates')).body.api_cert as string)).toBe(
      fingerprintOf(leaf.pem),
    );
    expect(audited.filter((r) => r.event === 'api_certificate_rotate')).toEqual([
      expect.objectContaining({
        outcome: 'success',
        changes: [],
        reason: expect.stringContaining('nothing to rotate'),
      }),
    ]);
    // Asked by name: PUT a new one instead.
    const refused = await send(server, 'POST', '/v1/cluster/certificates/rotate', { name: 'api' });
    expect([refused.status, refused.body.error_code]).toEqual([403, 'rotation_unsupported']);
    expect(refused.body.message).toContain('PUT /v1/cluster/certificates');
    expect((await served(server)).fingerprint256).toBe(fingerprintOf(leaf.pem));
    // The product's others: Tessera makes none of them.
    for (const name of ['proxy', 'cm', 'syncer', 'mtls_trusted_ca']) {
      const named = await send(server, 'POST', '/v1/cluster/certificates/rotate', { name });
      expect([name, named.status, named.body.error_code]).toEqual([name, 403, 'rotation_unsupported']);
    }
  });
});

describe('a node started with --tls-cert', () => {
  it('does not rotate its own (no body: 200, nothing changed; by name: 403), and serves the stored certificate over its own', async () => {
    const server = await serve({ tls: { enabled: true, certFile: other.certFile, keyFile: other.keyFile } });
    try {
      expect((await served(server)).fingerprint256).toBe(fingerprintOf(other.pem));
      const all = await send(server, 'POST', '/v1/cluster/certificates/rotate');
      expect([all.status, all.body]).toEqual([200, {}]);
      expect((await served(server)).fingerprint256).toBe(fingerprintOf(other.pem));
      const refused = await send(server, 'POST', '/v1/cluster/certificates/rotate', { name: 'api' });
      expect([refused.status, refused.body.error_code]).toEqual([403, 'rotation_unsupported']);
      expect((await send(server, 'PUT', '/v1/cluster/certificates', body(leaf.pem, leaf.key.toString()))).status).toBe(
        200,
      );
      expect((await served(server)).fingerprint256).toBe(fingerprintOf(leaf.pem));
      expect((await send(server, 'DELETE', '/v1/cluster/certificates/api')).status).toBe(403);
      expect((await served(server)).fingerprint256).toBe(fingerprintOf(leaf.pem));
    } finally {
      await server.close();
    }
  });
});

describe("what a certificate must be (an attacker's review)", () => {
  it('refuses a key pasted beside the certificates, keys clients refuse, a CA that signs others, and one not made for servers; answers certificates only', async () => {
    const dir = tmp();
    const openssl = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    const selfSigned = (name: string, keyArgs: string[], ext: string[]) => {
      const extensions = ext.flatMap((e) => ['-addext', e]);
      openssl([
        'req',
        '-x509',
        ...keyArgs,
        '-nodes',
        '-days',
        '2',
        '-subj',
        `/CN=${name}`,
        '-keyout',
        `${name}.key`,
        '-out',
        `${name}.pem`,
        ...extensions,
      ]);
      return {
        cert: readFileSync(path.join(dir, `${name}.pem`), 'utf8'),
        key: readFileSync(path.join(dir, `${name}.key`), 'utf8'),
      };
    };
    const forServers = ['basicConstraints=CA:FALSE', 'extendedKeyUsage=serverAuth'];
    const p256 = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
    const rsa1024 = selfSigned('rsa1024', ['-newkey', 'rsa:1024'], forServers);
    const brainpool = selfSigned(
      'brainpool',
      ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:brainpoolP256r1'],
      forServers,
    );
    const clientOnly = selfSigned('client-only', p256, ['basicConstraints=CA:FALSE', 'extendedKeyUsage=clientAuth']);
    const node = await serve();
    try {
      const before = (await served(node)).fingerprint256;
      for (const [what, cert, key] of [
        ['a key beside the certificate', `${leaf.pem}${leaf.key}`, leaf.key.toString()],
        ['RSA 1024', rsa1024.cert, rsa1024.key],
        ['brainpoolP256r1', brainpool.cert, brainpool.key],
        ['a CA that signs others', inter.pem, readFileSync(inter.keyFile, 'utf8')],
        ['clientAuth only', clientOnly.cert, clientOnly.key],
      ] as const) {
        const res = await send(node, 'PUT', '/v1/cluster/certificates', body(cert, key));
        expect([what, res.status, res.body.error_code]).toEqual([what, 400, 'invalid_certificate']);
        expect(JSON.stringify(res.body)).not.toContain('PRIVATE KEY');
      }
      expect((await served(node)).fingerprint256).toBe(before);
      expect(JSON.stringify((await send(node, 'GET', '/v1/cluster/certificates')).body)).not.toContain('PRIVATE KEY');
      // A self-signed one alone may say CA (openssl req -x509 does): taken.
      const plain = selfSigned('plain-self-signed', p256, []);
      expect((await send(node, 'PUT', '/v1/cluster/certificates', body(plain.cert, plain.key))).status).toBe(200);
    } finally {
      await node.close();
    }
  });

  it("a node started with --tls-cert keeps its own over one another node's rotation made, and takes one an admin gave", async () => {
    const db = await freshPostgres();
    const cluster = { databaseUrl: db.url, publicUrl: 'https://tessera.cluster.example' };
    const selfMade = await serve(cluster);
    const operator = await serve({
      ...cluster,
      tls: { enabled: true, certFile: other.certFile, keyFile: other.keyFile },
    });
    try {
      expect((await send(selfMade, 'POST', '/v1/cluster/certificates/rotate')).status).toBe(200);
      const rotated = (await send(selfMade, 'GET', '/v1/cluster/certificates')).body.api_cert as string;
      await eventually(async () => (await served(selfMade)).fingerprint256 === fingerprintOf(rotated));
      await new Promise((r) => setTimeout(r, 2500)); // past the other node's polls
      expect((await served(operator)).fingerprint256).toBe(fingerprintOf(other.pem));
      expect(
        (await send(selfMade, 'PUT', '/v1/cluster/certificates', body(leaf.pem, leaf.key.toString()))).status,
      ).toBe(200);
      await eventually(async () => (await served(operator)).fingerprint256 === fingerprintOf(leaf.pem));
    } finally {
      await operator.close();
      await selfMade.close();
      await db.drop();
    }
  });
});

describe('two nodes on one PostgreSQL store', () => {
  it('the other node serves a new certificate, and the new minimum TLS version, within a couple of seconds', async () => {
    const db = await freshPostgres();
    const cluster = { databaseUrl: db.url, publicUrl: 'https://tessera.cluster.example' };
    const a = await serve(cluster);
    const b = await serve(cluster);
    try {
      expect((await send(a, 'PUT', '/v1/cluster/certificates', body(leaf.pem, leaf.key.toString()))).status).toBe(200);
      const put = Date.now();
      await eventually(async () => (await served(b)).fingerprint256 === fingerprintOf(leaf.pem));
      expect(Date.now() - put).toBeLessThan(3000);

      expect((await send(a, 'PUT', '/v1/cluster', { min_control_TLS_version: '1.3' })).status).toBe(200);
      await eventually(() =>
        served(b, { maxVersion: 'TLSv1.2' }).then(
          () => false,
          () => true,
        ),
      );

      expect((await send(b, 'PUT', '/v1/cluster/certificates', body(other.pem, other.key.toString()))).status).toBe(
        200,
      );
      await eventually(async () => (await served(a)).fingerprint256 === fingerprintOf(other.pem));
    } finally {
      await b.close();
      await a.close();
      await db.drop();
    }
  });
});

describe.each(['sqlite', 'postgres'] as const)(
  "the product's other certificates (proxy, cm, …) on %s: kept, used by nothing here",
  (dialect) => {
    let server: RunningServer;
    let drop = async () => {};
    let proxy: ClientCertificate;
    let syncer: ClientCertificate;
    let ldapClient: ClientCertificate;
    const audited: AuditRecord[] = [];
    const docsExample = () => ({
      certificates: [
        { name: 'proxy', certificate: proxy.pem, key: proxy.key.toString() },
        { name: 'api', certificate: leaf.pem, key: leaf.key.toString() },
      ],
    });
    const view = async () => {
      const res = await send(server, 'GET', '/v1/cluster/certificates');
      expect(res.status).toBe(200);
      expect(JSON.stringify(res.body)).not.toContain('PRIVATE KEY');
      expect(Object.keys(res.body).filter((k) => !k.endsWith('_cert'))).toEqual([]); // no api_key, no proxy_key
      return res.body;
    };

    beforeAll(async () => {
      proxy = issue(root, `proxy-${dialect}`, '/CN=proxy.example', { extensions: 'server' });
      syncer = issue(root, `syncer-${dialect}`, '/CN=syncer.example', { extensions: 'client' });
      ldapClient = issue(root, `ldap-client-${dialect}`, '/CN=ldap-client.example', { extensions: 'client' });
      if (dialect === 'postgres') {
        const db = await freshPostgres();
        drop = db.drop;
        server = await serve({ databaseUrl: db.url, publicUrl: 'https://tessera.cluster.example' });
      } else server = await serve();
      server.tessera.events.on('audited', (record) => audited.push(record));
    });
    afterAll(async () => {
      await server.close();
      await drop();
    });

    it("the docs' PUT example (proxy and api): 200, api served to new connections, proxy_cert shown, no key anywhere", async () => {
      const res = await send(server, 'PUT', '/v1/cluster/certificates', docsExample());
      expect([res.status, res.body]).toEqual([200, {}]);
      expect((await served(server)).fingerprint256).toBe(fingerprintOf(leaf.pem));
      const got = await view();
      expect(fingerprintOf(got.proxy_cert as string)).toBe(fingerprintOf(proxy.pem));
      expect(fingerprintOf(got.api_cert as string)).toBe(fingerprintOf(leaf.pem));
      expect(audited).toContainEqual(
        expect.objectContaining({ event: 'cluster_certificate_update', target: 'proxy', changes: ['proxy'] }),
      );
      expect(JSON.stringify(audited)).not.toContain('PRIVATE KEY');
    });

    it("the key is sealed in the store as api's (bound to its name), never in clear", async () => {
      const row = await server.tessera.db
        .selectFrom('settings')
        .select('value')
        .where('key', '=', 'certificate.proxy')
        .executeTakeFirstOrThrow();
      const stored = JSON.parse(row.value);
      expect(stored.key).toMatch(/^sealed\.v1\./);
      expect(row.value).not.toContain(proxy.key.toString().split('\n')[1]!);
      expect(
        new KeySealer(masterKeyBytes(MASTER_KEY)).open<{ key: string }>(stored.key, 'certificate.proxy.key'),
      ).toEqual({ key: proxy.key.toString() });
      expect(() => new KeySealer(masterKeyBytes(MASTER_KEY)).open(stored.key, 'certificate.cm.key')).toThrow(
        /the cm certificate's key/,
      );
    });

    it.each([
      [
        'another key',
        () => ({ certificate: proxy.pem, key: other.key.toString() }),
        400,
        "the key is not the certificate's",
      ],
      ['no key', () => ({ certificate: proxy.pem }), 400, 'private key'],
      ['expired', () => ({ certificate: expired.pem, key: expired.key.toString() }), 406, 'expired'],
      ['made for TLS clients only', () => ({ certificate: syncer.pem, key: syncer.key.toString() }), 400, 'serverAuth'],
    ])('a bad proxy (%s) with a good api: refused, and neither is set', async (_what, make, status, says) => {
      const before = await view();
      const servedBefore = (await served(server)).fingerprint256;
      const res = await send(server, 'PUT', '/v1/cluster/certificates', {
        certificates: [
          { name: 'api', certificate: other.pem, key: other.key.toString() },
          { name: 'proxy', ...make() },
        ],
      });
      expect([res.status, res.body.error_code]).toEqual([
        status,
        status === 406 ? 'expired_certificate' : 'invalid_certificate',
      ]);
      expect(res.body.message).toMatch(/^proxy: /);
      expect(res.body.message).toContain(says);
      expect(JSON.stringify(res.body)).not.toContain('PRIVATE KEY');
      expect((await served(server)).fingerprint256).toBe(servedBefore);
      expect(await view()).toEqual(before);
    });

    it('each name is checked for what it is used for: syncer and ldap_client are TLS clients; a name the product has not is 403', async () => {
      const set = await send(server, 'PUT', '/v1/cluster/update_cert', {
        name: 'syncer',
        certificate: syncer.pem,
        key: syncer.key.toString(),
      });
      expect([set.status, set.body]).toEqual([200, {}]);
      expect(
        (
          await send(server, 'PUT', '/v1/cluster/certificates', {
            certificates: [{ name: 'ldap_client', certificate: ldapClient.pem, key: ldapClient.key.toString() }],
          })
        ).status,
      ).toBe(200);
      const wrong = await send(server, 'PUT', '/v1/cluster/update_cert', {
        name: 'syncer',
        certificate: proxy.pem,
        key: proxy.key.toString(),
      });
      expect([wrong.status, wrong.body.error_code]).toEqual([400, 'invalid_certificate']);
      expect(wrong.body.message).toContain('clientAuth');
      const unknown = await send(server, 'PUT', '/v1/cluster/update_cert', {
        name: 'web',
        certificate: proxy.pem,
        key: proxy.key.toString(),
      });
      expect([unknown.status, unknown.body.error_code]).toEqual([403, 'unknown_certificate']);
      const got = await view();
      expect(fingerprintOf(got.syncer_cert as string)).toBe(fingerprintOf(syncer.pem));
      expect(fingerprintOf(got.ldap_client_cert as string)).toBe(fingerprintOf(ldapClient.pem));
    });

    it('DELETE: proxy and api 403 (required), ldap_client 200 (optional, set or not), a name that is no certificate 404', async () => {
      for (const name of ['proxy', 'api']) {
        const res = await send(server, 'DELETE', `/v1/cluster/certificates/${name}`);
        expect([name, res.status, res.body.error_code]).toEqual([name, 403, 'delete_required_certificate_not_allowed']);
        expect(res.body.message).toContain(`${name} is a required cluster certificate`);
      }
      expect((await served(server)).fingerprint256).toBe(fingerprintOf(leaf.pem));
      expect(await view()).toHaveProperty('proxy_cert');
      for (let i = 0; i < 2; i++) {
        const res = await send(server, 'DELETE', '/v1/cluster/certificates/ldap_client');
        expect([res.status, res.body]).toEqual([200, {}]);
      }
      expect(await view()).not.toHaveProperty('ldap_client_cert');
      expect(audited).toContainEqual(
        expect.objectContaining({ event: 'cluster_certificate_delete', target: 'ldap_client' }),
      );
      const unknown = await send(server, 'DELETE', '/v1/cluster/certificates/web');
      expect([unknown.status, unknown.body.error_code]).toEqual([404, 'not_found']);
    });

    it("rotate with no body: the api certificate in use is an operator's, nothing internal to rotate: 200, nothing changed", async () => {
      const before = await view();
      const res = await send(server, 'POST', '/v1/cluster/certificates/rotate');
      expect([res.status, res.body]).toEqual([200, {}]);
      expect((await served(server)).fingerprint256).toBe(fingerprintOf(leaf.pem));
      expect(await view()).toEqual(before);
      const named = await send(server, 'POST', '/v1/cluster/certificates/rotate', { name: 'proxy' });
      expect([named.status, named.body.error_code]).toEqual([403, 'rotation_unsupported']);
    });
  },
);
