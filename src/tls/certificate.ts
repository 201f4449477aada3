import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';

export interface TlsFiles {
  key: Buffer;
  cert: Buffer;
  /** Set when the certificate was made just now. */
  generatedAt?: string;
}

/** Reads the given certificate and key. */
export function readTlsFiles(certFile: string, keyFile: string): TlsFiles {
  return { cert: readFileSync(certFile), key: readFileSync(keyFile) };
}

/** How long a certificate Tessera makes for itself is valid (the product's self-signed ones: a year). */
export const SELF_SIGNED_DAYS = 365;

/** The names a certificate is for: its subject's CN, its SAN DNS names and IP addresses. */
export interface CertificateNames {
  commonName: string;
  dns: string[];
  ips: string[];
}

/**
 * A new self-signed server certificate and its key (PEM): ECDSA P-256, valid for
 * SELF_SIGNED_DAYS from now, for these names.
 */
export async function makeSelfSigned(names: CertificateNames): Promise<{ cert: string; private: string }> {
  const notBeforeDate = new Date();
  const notAfterDate = new Date(notBeforeDate.getTime() + SELF_SIGNED_DAYS * 86_400_000);
  const { generate } = await import('selfsigned'); // needed on a first start or a rotation only
  return generate([{ name: 'commonName', value: names.commonName }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          ...names.dns.map((value) => ({ type: 2 as const, value })),
          ...names.ips.map((ip) => ({ type: 7 as const, ip })),
        ],
      },
    ],
  });
}

/**
 * The self-signed certificate in `<dataDir>/tls`, made on first start as the product does:
 * ECDSA P-256, valid for a year, for localhost, 127.0.0.1, ::1 and this host's name.
 */
export async function selfSignedTls(dataDir: string): Promise<TlsFiles> {
  const dir = path.join(dataDir, 'tls');
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  if (existsSync(certFile) && existsSync(keyFile)) return readTlsFiles(certFile, keyFile);

  const pems = await makeSelfSigned({
    commonName: hostname(),
    dns: ['localhost', hostname()],
    ips: ['127.0.0.1', '::1'],
  });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Each file appears whole or not at all (a start killed half-way makes a new pair).
  writeWhole(keyFile, pems.private, 0o600);
  writeWhole(certFile, pems.cert, 0o644);
  return { key: Buffer.from(pems.private), cert: Buffer.from(pems.cert), generatedAt: certFile };
}

function writeWhole(file: string, text: string, mode: number): void {
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, text, { mode });
  renameSync(partial, file);
}
