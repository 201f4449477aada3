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

/**
 * The self-signed certificate in `<dataDir>/tls`, made on first start as the product does:
 * ECDSA P-256, valid for a year, for localhost, 127.0.0.1, ::1 and this host's name.
 */
export async function selfSignedTls(dataDir: string): Promise<TlsFiles> {
  const dir = path.join(dataDir, 'tls');
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  if (existsSync(certFile) && existsSync(keyFile)) return readTlsFiles(certFile, keyFile);

  const notBeforeDate = new Date();
  const notAfterDate = new Date(notBeforeDate.getTime() + 365 * 86_400_000);
  const { generate } = await import('selfsigned'); // needed on first start only
  const pems = await generate([{ name: 'commonName', value: hostname() }], {
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
          { type: 2, value: 'localhost' },
          { type: 2, value: hostname() },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
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
