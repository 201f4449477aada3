#!/usr/bin/env node
// npm run try:sso [-- --address URL] — a real SAML identity provider on this machine to try
// docs/sso.md against: the SimpleSAMLphp the tests start (test/helpers/simplesamlphp.mjs), with
// two people, on a free port, until Ctrl-C. It trusts Tessera at its address (the README's
// https://127.0.0.1:9443 unless told) signing with ./sp.crt and ./sp.key (made here with the
// docs' openssl line when they are not here yet), and prints the requests that configure
// Tessera's SSO against it and how to sign in through it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SSP_PACKAGES, selfSigned, simpleSamlPhpMissing, startIdp } from '../test/helpers/simplesamlphp.mjs';

const HELPER = path.resolve(import.meta.dirname, 'json-with-files.mjs');
const PEOPLE = [
  { username: 'alice', password: 'alice-password-1', email: 'alice@example.org', firstName: 'Alice', roles: ['2'] },
  { username: 'bob', password: 'bob-password-1', email: 'bob@example.org', firstName: 'Bob', roles: [] },
];

function fail(message) {
  console.error(`try:sso: ${message}`);
  process.exit(1);
}

let address;
try {
  const { values } = parseArgs({ options: { address: { type: 'string', default: 'https://127.0.0.1:9443' } } });
  const url = new URL(values.address);
  if (!/^https?:$/.test(url.protocol) || url.pathname !== '/' || url.search || url.hash)
    throw new Error(`--address ${values.address} is not a base URL (http or https, no path)`);
  address = url.origin;
} catch (err) {
  fail(
    `${err.message}\nusage: npm run try:sso [-- --address URL]   (Tessera's address as browsers reach it, like https://127.0.0.1:9443)`,
  );
}

const missing = simpleSamlPhpMissing();
if (missing.length > 0)
  fail(
    `the identity provider is SimpleSAMLphp under PHP; missing here: ${missing.join(', ')}.\n` +
      `Install them (as root): apt-get install ${SSP_PACKAGES.join(' ')}`,
  );
try {
  execFileSync('openssl', ['version'], { stdio: 'ignore' });
} catch {
  fail('openssl makes the certificates and is missing here. Install it (as root): apt-get install openssl');
}

// Tessera's SAML certificate and key, where docs/sso.md's openssl line makes them: the identity provider checks Tessera's requests with it.
const here = process.cwd();
const [spCrt, spKey] = ['sp.crt', 'sp.key'].map((f) => path.join(here, f));
let made = false;
if (existsSync(spCrt) !== existsSync(spKey))
  fail(
    `${existsSync(spCrt) ? spCrt : spKey} is here without its pair (sp.crt and sp.key): move it away, or bring the other`,
  );
if (!existsSync(spCrt)) {
  selfSigned(here, 'sp', 'tessera-sp', 730);
  made = true;
}
const spCertificate = readFileSync(spCrt, 'utf8');

let idp;
try {
  idp = await startIdp(PEOPLE);
} catch (err) {
  fail(err.message);
}
idp.trustSp({
  entityId: `${address}/sp`,
  acsUrl: `${address}/v1/cluster/sso/saml/acs`,
  sloUrl: `${address}/v1/cluster/sso/saml/slo`,
  certificate: spCertificate,
});
// The identity provider's files that docs/sso.md asks of yours, for as long as it runs.
const files = mkdtempSync(path.join(tmpdir(), 'tessera-try-sso-'));
const [idpCrt, idpMetadata] = ['idp.crt', 'idp-metadata.xml'].map((f) => path.join(files, f));
writeFileSync(idpCrt, idp.certificate);
writeFileSync(idpMetadata, await idp.metadataXml());

/** A word for the shell, quoted when it needs it. */
const sh = (word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);
const body = (template) => `BODY=$(node ${sh(HELPER)} ${sh(JSON.stringify(template))})`;
const certificates = body({
  certificates: [
    { name: 'sso_service', certificate: `@${spCrt}`, key: `@${spKey}` },
    { name: 'sso_issuer', certificate: `@${idpCrt}` },
  ],
});
const metadata = body({ idp_metadata: `@base64:${idpMetadata}` });

process.stdout.write(`A SAML identity provider (SimpleSAMLphp) is listening at ${new URL(idp.entityId).origin}/simplesaml until Ctrl-C.
People: alice / alice-password-1 (alice@example.org, redisRoleMapping 2: Cluster Member), bob / bob-password-1 (bob@example.org, no role).
It trusts Tessera at ${address} (another address: npm run try:sso -- --address URL), signing with
${spCrt} (${made ? 'made now, its key beside it' : 'already there'}).

With the README's API and AUTH (an admin's token), in another terminal:

${certificates} && printf %s "$BODY" | curl -sk -H "$AUTH" -X PUT $API/v1/cluster/certificates -d @- -w '\\n'
${metadata} && curl -sk -H "$AUTH" -X POST $API/v1/cluster/sso/saml/metadata/idp -d "$BODY" -o /dev/null -w '%{http_code}\\n'
curl -sk -H "$AUTH" -X PUT $API/v1/cluster/sso -d '{"control_plane": true}' -o /dev/null -w '%{http_code}\\n'

Then sign in through it: open ${address}/ in a browser, choose "Sign in with SSO", and log in at the
identity provider as alice / alice-password-1: Tessera makes the user alice@example.org, a Cluster Member.
bob is refused (sso_no_role: the identity provider gives him no role).

When you are done (before Ctrl-C: SSO stays on, sending sign-ins to an identity provider that is gone):

curl -sk -H "$AUTH" -X DELETE $API/v1/cluster/sso -w '\\n'
`);

const stop = async () => {
  await idp.stop();
  rmSync(files, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
process.on('SIGHUP', stop);
