// npm run bench:walk — which of Tessera's own files one request runs code in: a password login,
// an LDAP login, a Basic call, a token call and a client-certificate call, each after a
// warm-up, counted by V8's precise coverage (functions called at least once during that one
// request). Not a speed figure: how far a request travels through the code.
import { mkdtempSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = path.resolve(import.meta.dirname, '..');
const dist = (p) => pathToFileURL(path.join(ROOT, 'dist', p)).href;
const { makeConfig } = await import(dist('config/config.js'));
const { openTessera } = await import(dist('tessera.js'));
const { buildApp } = await import(dist('app.js'));
const { startDirectory, directorySettings, person, group, groupDn } = await import(
  pathToFileURL(path.join(ROOT, 'test/helpers/slapd.mjs')).href
);
const { makeClientCertificate } = await import('./lib/client-certificate.mjs');

const tmp = mkdtempSync(path.join(os.tmpdir(), 'tessera-walk-'));
const basic = (u, p) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });

/** Tessera's files (under dist/) whose functions ran during `work`, run once after a warm-up of three. */
async function walk(work) {
  for (let i = 0; i < 3; i++) await work(i);
  await session.post('Profiler.takePreciseCoverage'); // resets the counts
  await work(3);
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const prefix = `${pathToFileURL(path.join(ROOT, 'dist')).href}/`;
  return result
    .filter((s) => s.url.startsWith(prefix) && s.functions.some((f) => f.ranges[0].count > 0))
    .map((s) => s.url.slice(prefix.length).replace(/\.js$/, '.ts'))
    .sort();
}

const { ca: caPem, cert: botPem } = makeClientCertificate(tmp, '/O=Example/CN=walk-bot');

const directory = await startDirectory(person('alice', 'alice-pw-1') + group('ops', ['alice']));
const config = makeConfig({
  dataDir: path.join(tmp, 'data'),
  argon2: { memoryCost: 1024, timeCost: 1, parallelism: 1 },
  authRateLimit: 0,
  tls: { enabled: false },
  mtls: { certHeader: 'x-client-cert', trustedProxies: ['127.0.0.1'] },
});
const tessera = await openTessera(config);
const app = buildApp(tessera);
const inject = async (method, url, headers = {}, body) => {
  const res = await app.inject({
    method,
    url,
    headers,
    remoteAddress: '127.0.0.1',
    ...(body && { payload: JSON.stringify(body) }),
  });
  if (res.statusCode !== 200) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json();
};
try {
  // Four users of one password: each login of the walk verifies it in full (none is in the verified-credentials cache yet).
  for (const name of ['root', 'op0', 'op1', 'op2', 'op3']) {
    await tessera.userCreation.create(
      null,
      { username: name, password: 'root-password-1', role: 'admin' },
      { ip: 'local', requestId: 'walk' },
    );
  }
  const admin = `JWT ${(await inject('POST', '/v1/users/authorize', {}, { username: 'root', password: 'root-password-1' })).access_token}`;
  await inject(
    'PUT',
    '/v1/cluster/ldap',
    { authorization: admin },
    { ...directorySettings(directory.url), cache_ttl: 0 },
  );
  await inject(
    'POST',
    '/v1/ldap_mappings',
    { authorization: admin },
    { name: 'Ops', dn: groupDn('ops'), role_uids: [1] },
  );
  await inject(
    'PUT',
    '/v1/cluster/certificates',
    { authorization: admin },
    { certificates: [{ name: 'mtls_trusted_ca', certificate: caPem }] },
  );
  await inject('PUT', '/v1/cluster', { authorization: admin }, { mtls_certificate_authentication: true });
  await inject(
    'POST',
    '/v1/users',
    { authorization: admin },
    { auth_method: 'certificate', certificate_subject_line: 'CN=walk-bot,O=Example', role: 'cluster_viewer' },
  );
  const walks = {
    'password login (7.4 body)': (i) =>
      inject('POST', '/v1/users/authorize', {}, { username: `op${i}`, password: 'root-password-1' }),
    'LDAP login (cache_ttl 0)': () =>
      inject('POST', '/v1/users/authorize', {}, { username: 'alice', password: 'alice-pw-1' }),
    'cached Basic call (GET /v1/users/1)': () =>
      inject('GET', '/v1/users/1', { authorization: basic('root', 'root-password-1') }),
    'token call (GET /v1/users/1)': () => inject('GET', '/v1/users/1', { authorization: admin }),
    'certificate call (GET /v1/users/permissions)': () =>
      inject('GET', '/v1/users/permissions', { 'x-client-cert': encodeURIComponent(botPem) }),
  };
  for (const [name, work] of Object.entries(walks)) {
    const files = await walk(work);
    const folders = new Set(files.map((f) => (f.includes('/') ? f.slice(0, f.lastIndexOf('/')) : '.')));
    console.log(`${name}: ${files.length} files in ${folders.size} folders`);
    console.log(`  ${files.join(' ')}`);
  }
} finally {
  await app.close();
  await tessera.close();
  await directory.stop();
  rmSync(tmp, { recursive: true, force: true });
}
