import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** A CA made by openssl for a test, and the certificates it signs. */
export interface TestCa {
  name: string;
  certFile: string;
  keyFile: string;
  pem: string;
}

export interface ClientCertificate {
  certFile: string;
  keyFile: string;
  /** The leaf, then the chain the client sends with it (an intermediate, if any). */
  pem: string;
  cert: Buffer;
  key: Buffer;
}

const openssl = (args: string[], cwd: string) => execFileSync('openssl', args, { cwd, stdio: 'pipe' });
const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** A self-signed root CA (basicConstraints CA:TRUE), valid for a few days. */
export function makeCa(dir: string, name: string): TestCa {
  const base = path.join(dir, name);
  mkdirSync(base, { recursive: true });
  openssl(['req', '-x509', ...EC, '-days', '3', '-subj', `/CN=${name}`, '-keyout', 'ca.key', '-out', 'ca.pem'], base);
  writeFileSync(path.join(base, 'index.txt'), '');
  writeFileSync(path.join(base, 'serial'), '1000\n');
  writeFileSync(
    path.join(base, 'ca.cnf'),
    [
      '[ca]',
      'default_ca = test_ca',
      '[test_ca]',
      `dir = ${base}`,
      'database = $dir/index.txt',
      'serial = $dir/serial',
      'new_certs_dir = $dir',
      'default_md = sha256',
      'policy = anything',
      'unique_subject = no',
      'copy_extensions = none',
      '[anything]',
      'commonName = supplied',
      'organizationalUnitName = optional',
      'organizationName = optional',
      'countryName = optional',
      'localityName = optional',
      'stateOrProvinceName = optional',
      '[client]',
      'basicConstraints = CA:FALSE',
      'extendedKeyUsage = clientAuth',
      '[server]',
      'basicConstraints = CA:FALSE',
      'extendedKeyUsage = serverAuth',
      '[intermediate]',
      'basicConstraints = critical,CA:TRUE',
      'keyUsage = keyCertSign, cRLSign',
      '[intermediate_pathlen0]',
      'basicConstraints = critical,CA:TRUE,pathlen:0',
      'keyUsage = keyCertSign, cRLSign',
      '',
    ].join('\n'),
  );
  return {
    name,
    certFile: path.join(base, 'ca.pem'),
    keyFile: path.join(base, 'ca.key'),
    pem: readFileSync(path.join(base, 'ca.pem'), 'utf8'),
  };
}

/**
 * A certificate signed by `ca` for `subject` ("/CN=…/OU=…/O=…"), between two moments
 * (openssl's YYYYMMDDHHMMSSZ; default: from an hour ago for two days), as `openssl ca` makes it.
 */
export function issue(
  ca: TestCa,
  file: string,
  subject: string,
  options: {
    start?: Date;
    end?: Date;
    extensions?: 'client' | 'server' | 'intermediate' | 'intermediate_pathlen0';
    chain?: TestCa[];
  } = {},
): ClientCertificate {
  const dir = path.dirname(ca.certFile);
  const at = (d: Date) => `${d.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
  const start = options.start ?? new Date(Date.now() - 3_600_000);
  const end = options.end ?? new Date(Date.now() + 2 * 86_400_000);
  openssl(['req', '-new', ...EC, '-subj', subject, '-keyout', `${file}.key`, '-out', `${file}.csr`], dir);
  openssl(
    [
      'ca',
      '-config',
      'ca.cnf',
      '-batch',
      '-notext',
      '-preserveDN',
      '-extensions',
      options.extensions ?? 'client',
      '-startdate',
      at(start),
      '-enddate',
      at(end),
      '-cert',
      'ca.pem',
      '-keyfile',
      'ca.key',
      '-in',
      `${file}.csr`,
      '-out',
      `${file}.pem`,
    ],
    dir,
  );
  const leaf = readFileSync(path.join(dir, `${file}.pem`), 'utf8');
  const pem = [leaf, ...(options.chain ?? []).map((c) => c.pem)].join('');
  const certFile = path.join(dir, `${file}.chain.pem`);
  writeFileSync(certFile, pem);
  const keyFile = path.join(dir, `${file}.key`);
  return { certFile, keyFile, pem, cert: Buffer.from(pem), key: readFileSync(keyFile) };
}

/** An intermediate CA signed by `ca`, that can sign in turn (`pathLen0`: but no CA below it, basicConstraints pathlen:0). */
export function intermediate(ca: TestCa, dir: string, name: string, options: { pathLen0?: boolean } = {}): TestCa {
  const made = makeCa(dir, name); // its folder, config and key; the certificate is replaced by one `ca` signs
  const signed = issue(ca, `${name}-by-parent`, `/CN=${name}`, {
    extensions: options.pathLen0 ? 'intermediate_pathlen0' : 'intermediate',
  });
  const leafOnly = signed.pem;
  writeFileSync(made.certFile, leafOnly);
  writeFileSync(made.keyFile, readFileSync(signed.keyFile));
  return { ...made, pem: leafOnly };
}

/** The subject as RFC 2253 writes it, by openssl itself. */
export function rfc2253Subject(certFile: string): string {
  return execFileSync('openssl', ['x509', '-in', certFile, '-noout', '-subject', '-nameopt', 'RFC2253'])
    .toString()
    .trim()
    .replace(/^subject=/, '');
}

/**
 * A client certificate signed by `ca` with `openssl x509 -req`, which takes any subject —
 * also an empty one ("/"), which `openssl ca`'s policy refuses — and these extension lines.
 */
export function issueAnySubject(ca: TestCa, file: string, subject: string, extensions: string[]): ClientCertificate {
  const dir = path.dirname(ca.certFile);
  openssl(['req', '-new', ...EC, '-subj', subject, '-keyout', `${file}.key`, '-out', `${file}.csr`], dir);
  writeFileSync(path.join(dir, `${file}.ext`), `${extensions.join('\n')}\n`);
  openssl(
    [
      'x509',
      '-req',
      '-in',
      `${file}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      `${file}.ext`,
      '-out',
      `${file}.pem`,
    ],
    dir,
  );
  const pem = readFileSync(path.join(dir, `${file}.pem`), 'utf8');
  const keyFile = path.join(dir, `${file}.key`);
  return { certFile: path.join(dir, `${file}.pem`), keyFile, pem, cert: Buffer.from(pem), key: readFileSync(keyFile) };
}

export type ProxiedMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';
export interface ProxiedRequest {
  auth?: string;
  cert?: ClientCertificate;
  body?: unknown;
}

/**
 * A request to an in-process Tessera as a TLS-terminating proxy at 127.0.0.1 passes it on: the
 * client certificate (if any) in the x-client-cert header (the tests' `mtls.certHeader`).
 */
export async function viaProxy(
  t: { app: { inject: (o: object) => Promise<{ statusCode: number; body: string; json(): any }> } },
  method: ProxiedMethod,
  url: string,
  o: ProxiedRequest = {},
): Promise<{ status: number; body: any }> {
  const res = await t.app.inject({
    method,
    url,
    remoteAddress: '127.0.0.1',
    headers: {
      ...(o.auth && { authorization: o.auth }),
      ...(o.cert && { 'x-client-cert': encodeURIComponent(o.cert.pem) }),
    },
    payload: o.body === undefined ? undefined : JSON.stringify(o.body),
  });
  return { status: res.statusCode, body: res.body ? res.json() : undefined };
}
