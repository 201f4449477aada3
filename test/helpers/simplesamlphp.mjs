import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

// (Plain JavaScript, typed in simplesamlphp.d.mts, so that `npm run try:sso` starts the same
// identity provider as the tests; simplesamlphp.ts adds the tests' skip-or-fail decision.)

/** Debian's SimpleSAMLphp (packages simplesamlphp, php-cli, php-xml, php-mbstring), which .ci/run installs. */
export const SSP_WWW = '/usr/share/simplesamlphp/www';

/** What makes it run, as apt-get installs it. */
export const SSP_PACKAGES = ['simplesamlphp', 'php-cli', 'php-xml', 'php-mbstring'];

/** The Debian packages a real SAML identity provider still needs here (none: it can run). */
export function simpleSamlPhpMissing() {
  const missing = existsSync(SSP_WWW) ? [] : ['simplesamlphp'];
  let modules;
  try {
    modules = execFileSync('php', ['-m'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split(/\r?\n/);
  } catch {
    return [...missing, 'php-cli', 'php-xml', 'php-mbstring'];
  }
  if (!modules.includes('xml')) missing.push('php-xml');
  if (!modules.includes('mbstring')) missing.push('php-mbstring');
  return missing;
}

/** A self-signed RSA certificate and its key (`<name>.crt`, `<name>.key` in `dir`), made with openssl. */
export function selfSigned(dir, name, cn, days = 365) {
  const [certFile, keyFile] = [path.join(dir, `${name}.crt`), path.join(dir, `${name}.key`)];
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-sha256',
      '-nodes',
      '-days',
      String(days),
      '-subj',
      `/CN=${cn}`,
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return { certificate: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const probe = net
      .createServer()
      .once('error', reject)
      .listen(0, '127.0.0.1', () => {
        const { port } = probe.address();
        probe.close(() => resolve(port));
      });
  });

/** PHP that returns the JSON file beside it as an array: the test's data, never PHP it writes by hand. */
const fromJson = (variable, file) =>
  `<?php\n$${variable} = json_decode(file_get_contents(__DIR__ . '/${file}'), true);\n`;

/**
 * A real SAML 2.0 identity provider for a test: SimpleSAMLphp under PHP's built-in server,
 * on a free port, over a config written under a temp dir — users in exampleauth:UserPass
 * with the product's attributes, the email as the emailAddress NameID, signed assertions and
 * responses, signed AuthnRequests and logout messages required.
 */
export async function startIdp(users) {
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-idp-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}/simplesaml`;
  const entityId = `${base}/saml2/idp/metadata.php`;
  const [config, metadata, cert, docroot] = ['config', 'metadata', 'cert', 'docroot'].map((d) => path.join(dir, d));
  for (const d of [
    config,
    metadata,
    cert,
    docroot,
    ...['log', 'data', 'tmp', 'sessions'].map((d) => path.join(dir, 'var', d)),
  ])
    mkdirSync(d, { recursive: true });
  symlinkSync(SSP_WWW, path.join(docroot, 'simplesaml'));
  const { certificate, key } = selfSigned(cert, 'idp', 'test-idp');
  const settings = {
    baseurlpath: `${base}/`,
    secretsalt: 'tessera-test-salt-0123456789abcdef',
    'auth.adminpassword': 'not-used-admin-password',
    'admin.protectindexpage': false,
    'admin.protectmetadata': false,
    'admin.checkforupdates': false,
    technicalcontact_name: 'Test',
    technicalcontact_email: 'test@example.org',
    timezone: 'UTC',
    certdir: `${cert}/`,
    metadatadir: `${metadata}/`,
    loggingdir: `${dir}/var/log/`,
    datadir: `${dir}/var/data/`,
    tempdir: `${dir}/var/tmp/`,
    attributenamemapdir: '/usr/share/simplesamlphp/attributemap/',
    'logging.level': 7,
    'logging.handler': 'file',
    'logging.logfile': 'simplesamlphp.log',
    showerrors: true,
    errorreporting: false,
    production: false,
    'enable.saml20-idp': true,
    'module.enable': { exampleauth: true, core: true, saml: true, admin: true },
    'store.type': 'phpsession',
    'session.phpsession.cookiename': 'SimpleSAML',
    'session.phpsession.savepath': `${dir}/var/sessions`,
    'session.phpsession.httponly': true,
    'session.cookie.secure': false,
    'session.cookie.path': '/',
    'language.cookie.secure': false,
    'assertion.allowed_clock_skew': 180,
    'trusted.url.domains': ['127.0.0.1', 'localhost'],
  };
  writeFileSync(path.join(config, 'config.json'), JSON.stringify(settings));
  writeFileSync(path.join(config, 'config.php'), fromJson('config', 'config.json'));
  const accounts = Object.fromEntries(
    users.map((u) => [
      `${u.username}:${u.password}`,
      {
        uid: u.username,
        email: u.email,
        firstName: u.firstName ?? u.username,
        lastName: u.lastName ?? 'Test',
        ...(u.roles && { redisRoleMapping: u.roles }),
      },
    ]),
  );
  writeFileSync(
    path.join(config, 'authsources.json'),
    JSON.stringify({ admin: ['core:AdminPassword'], users: { 0: 'exampleauth:UserPass', ...accounts } }),
  );
  writeFileSync(path.join(config, 'authsources.php'), fromJson('config', 'authsources.json'));
  const hosted = {
    [entityId]: {
      host: '__DEFAULT__',
      privatekey: 'idp.key',
      certificate: 'idp.crt',
      auth: 'users',
      'signature.algorithm': 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
      NameIDFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
      authproc: {
        10: {
          class: 'saml:AttributeNameID',
          attribute: 'email',
          Format: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
        },
      },
      'attributes.NameFormat': 'urn:oasis:names:tc:SAML:2.0:attrname-format:basic',
      'validate.authnrequest': true,
      'validate.logout': true,
      'sign.logout': true,
      'saml20.sign.assertion': true,
      'saml20.sign.response': true,
    },
  };
  writeFileSync(path.join(metadata, 'saml20-idp-hosted.json'), JSON.stringify(hosted));
  writeFileSync(path.join(metadata, 'saml20-idp-hosted.php'), fromJson('metadata', 'saml20-idp-hosted.json'));
  writeFileSync(path.join(metadata, 'saml20-sp-remote.json'), '{}');
  writeFileSync(path.join(metadata, 'saml20-sp-remote.php'), fromJson('metadata', 'saml20-sp-remote.json'));

  const php = spawn(
    'php',
    [
      '-d',
      'opcache.enable=0',
      '-d',
      'display_errors=0',
      '-d',
      'log_errors=1',
      '-d',
      'error_reporting=E_ALL & ~E_DEPRECATED',
      '-S',
      `127.0.0.1:${port}`,
      '-t',
      docroot,
    ],
    { env: { ...process.env, SIMPLESAMLPHP_CONFIG_DIR: config }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  php.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const stop = async () => {
    if (php.exitCode === null) {
      php.kill('SIGKILL');
      await new Promise((resolve) => php.once('exit', resolve));
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const metadataXml = async () => (await fetch(entityId)).text();
  for (let tries = 0; ; tries++) {
    const up = await fetch(entityId).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (tries > 100 || php.exitCode !== null) {
      await stop();
      throw new Error(`SimpleSAMLphp did not start on port ${port}:\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    entityId,
    metadataUrl: entityId,
    ssoUrl: `${base}/saml2/idp/SSOService.php`,
    sloUrl: `${base}/saml2/idp/SingleLogoutService.php`,
    certificate,
    key,
    trustSp: (sp) => {
      const remote = {
        [sp.entityId]: {
          AssertionConsumerService: [
            { Binding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST', Location: sp.acsUrl, index: 0 },
          ],
          SingleLogoutService: [{ Binding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect', Location: sp.sloUrl }],
          certData: sp.certificate.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''),
          NameIDFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
          'saml20.sign.assertion': true,
          'saml20.sign.response': true,
          'validate.authnrequest': true,
          'validate.logout': true,
          'sign.logout': true,
        },
      };
      writeFileSync(path.join(metadata, 'saml20-sp-remote.json'), JSON.stringify(remote));
    },
    metadataXml,
    stop,
  };
}
