// A CA and a client certificate it signs, made by openssl, for benches that log in with one.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** In `dir`: a CA, and a client certificate for `subject` ("/O=Example/CN=bot"); PEM texts and the CA's file. */
export function makeClientCertificate(dir, subject) {
  const openssl = (...args) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  openssl('req', '-x509', ...EC, '-days', '2', '-subj', '/CN=Bench Client CA', '-keyout', 'ca.key', '-out', 'ca.pem');
  openssl('req', '-new', ...EC, '-subj', subject, '-keyout', 'client.key', '-out', 'client.csr');
  writeFileSync(path.join(dir, 'client.ext'), 'basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n');
  openssl(
    'x509',
    '-req',
    '-in',
    'client.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    'client.ext',
    '-out',
    'client.pem',
  );
  const read = (f) => readFileSync(path.join(dir, f), 'utf8');
  return { caFile: path.join(dir, 'ca.pem'), ca: read('ca.pem'), cert: read('client.pem'), key: read('client.key') };
}

/** One JSON request over HTTPS to a server with a self-signed certificate, optionally presenting a client certificate. */
export function httpsJson(url, { method = 'GET', headers = {}, body, cert, key } = {}) {
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      { method, headers, rejectUnauthorized: false, agent: false, ...(cert && { cert, key }) },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () =>
          res.statusCode < 300
            ? resolve(text ? JSON.parse(text) : undefined)
            : reject(new Error(`${method} ${url}: ${res.statusCode} ${text}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
