import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, FAST_ARGON2_ENV, request, type ServeProcess, startServe } from '../helpers/cli.js';
import { IdpBrowser } from '../helpers/saml-browser.js';
import { selfSigned, simpleSamlPhpHere } from '../helpers/simplesamlphp.js';
import { decodeJwt } from '../helpers/test-tessera.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SCRIPT = path.join(ROOT, 'scripts/try-sso.mjs');

/** A shell line run as a user pastes it, in `cwd`, with the README's API and AUTH; `prelude` may stand in for curl. */
const paste = (line: string, cwd: string, env: Record<string, string>, prelude = '') =>
  spawnSync('bash', ['-c', `${prelude}\n${line}`], { cwd, env: { ...process.env, ...env }, encoding: 'utf8' });

/**
 * docs/sso.md's and docs/ldap.md's requests whose body holds files, as typed (a `BODY=$(node
 * scripts/json-with-files.mjs …) &&` line up to its curl): with the files there they send them,
 * without them they say which file is missing and how to get it, and send nothing.
 */
describe('the docs’ requests that read files', () => {
  const docLines = ['docs/sso.md', 'docs/ldap.md', 'docs/certificates.md'].flatMap((doc) =>
    [
      ...readFileSync(path.join(ROOT, doc), 'utf8').matchAll(
        /^BODY=\$\(node scripts\/json-with-files\.mjs [\s\S]*?curl [^\n]*/gm,
      ),
    ].map((m) => ({ doc, line: m[0].replace('node scripts/', `node '${ROOT}'/scripts/`) })),
  );
  /** curl that prints the body it would send (-d VALUE, or -d @- from its standard input), and sends nothing. */
  const FAKE_CURL = `curl() { local prev=; for a in "$@"; do if [ "$prev" = -d ]; then if [ "$a" = @- ]; then cat; else printf %s "$a"; fi; fi; prev=$a; done; }`;
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tessera-doc-files-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('name the missing file and how to get it, exit 1, and send no request', () => {
    expect(docLines.map((l) => l.doc)).toEqual([
      'docs/sso.md',
      'docs/sso.md',
      'docs/sso.md',
      'docs/ldap.md',
      'docs/certificates.md',
    ]);
    const said = docLines.map(({ line }) => {
      const res = paste(line, dir, { API: 'http://127.0.0.1:9', AUTH: 'Authorization: JWT x' }, FAKE_CURL);
      expect(res.stdout).toBe('');
      expect(res.status).toBe(1);
      return res.stderr.trim();
    });
    expect(said).toEqual([
      'missing file sp.crt: make it with the openssl line above (or run npm run try:sso)',
      expect.stringMatching(
        /^missing file idp\.crt: save your identity provider's signing certificate .*npm run try:sso/,
      ),
      expect.stringMatching(
        /^missing file idp-metadata\.xml: save your identity provider's metadata .*npm run try:sso/,
      ),
      expect.stringMatching(/^missing file ldap-ca\.pem: save your directory's CA certificate .*npm run try:ldap/),
      'missing file client-ca.pem: make it with the openssl lines above (the test CA)',
    ]);
  });

  it('send the files in the JSON body when they are there', () => {
    const sp = selfSigned(dir, 'sp', 'tessera-sp');
    writeFileSync(path.join(dir, 'idp.crt'), sp.certificate);
    writeFileSync(path.join(dir, 'idp-metadata.xml'), '<md:EntityDescriptor/>\n');
    writeFileSync(path.join(dir, 'ldap-ca.pem'), sp.certificate);
    writeFileSync(path.join(dir, 'client-ca.pem'), sp.certificate);
    const bodies = docLines.map(({ line }) => {
      const res = paste(line, dir, { API: 'http://127.0.0.1:9', AUTH: 'Authorization: JWT x' }, FAKE_CURL);
      expect(res.status, res.stderr).toBe(0);
      return JSON.parse(res.stdout);
    });
    expect(bodies[0]).toEqual({
      certificates: [{ name: 'sso_service', certificate: sp.certificate, key: sp.key }],
    });
    expect(bodies[1]).toEqual({ certificates: [{ name: 'sso_issuer', certificate: sp.certificate }] });
    expect(bodies[2]).toEqual({ idp_metadata: Buffer.from('<md:EntityDescriptor/>\n').toString('base64') });
    expect(bodies[3]).toMatchObject({ ca_cert: sp.certificate, starttls: true, control_plane: true });
    expect(bodies[4]).toEqual({ certificates: [{ name: 'mtls_trusted_ca', certificate: sp.certificate }] });
  });
});

/** `npm run try:sso` as docs/sso.md tells it: its printed requests, pasted against a real server, let alice sign in. */
describe.runIf(simpleSamlPhpHere())('npm run try:sso', () => {
  let dir: string;
  let server: ServeProcess;
  let idp: ChildProcessWithoutNullStreams;
  let exited: Promise<number | null>;
  let out = '';
  let token: string;
  const auth = () => `Authorization: JWT ${token}`;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tessera-e2e-try-sso-'));
    server = await startServe(['--no-tls', '--metrics-listen', 'off'], {
      ...FAST_ARGON2_ENV,
      TESSERA_DATA_DIR: path.join(dir, 'data'),
      TESSERA_ADMIN_USERNAME: 'root',
      TESSERA_ADMIN_PASSWORD: 'Root-password-1',
    });
    // Started where sp.crt and sp.key are to be (as npm run does, in the checkout): here, a folder of the test's.
    idp = spawn(process.execPath, [SCRIPT, '--address', server.url], { cwd: dir });
    exited = new Promise((resolve) => idp.on('exit', resolve));
    let stderr = '';
    idp.stderr.on('data', (d) => (stderr += d));
    await new Promise<void>((resolve, reject) => {
      idp.stdout.on('data', (d) => {
        out += d;
        if (out.includes('bob is refused')) resolve();
      });
      idp.on('exit', (code) => reject(new Error(`try-sso exited (${code}): ${out}${stderr}`)));
    });
    const login = await request(`${server.url}/v1/users/authorize`, {
      method: 'POST',
      headers: { authorization: basic('root', 'Root-password-1') },
      body: JSON.stringify({ ttl: 3600 }),
    });
    token = login.json.access_token;
  }, 60_000);

  afterAll(async () => {
    if (idp?.exitCode === null) {
      idp.kill('SIGINT');
      await exited;
    }
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const idpOrigin = () => /listening at (http:\/\/127\.0\.0\.1:\d+)\/simplesaml /.exec(out)?.[1] ?? '';

  it('prints requests that, pasted with the README’s API and AUTH, configure SSO against it: each answered 200', async () => {
    expect(idpOrigin()).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(existsSync(path.join(dir, 'sp.crt')) && existsSync(path.join(dir, 'sp.key'))).toBe(true);
    const [setUp = '', done = ''] = out.split('When you are done');
    const lines = setUp.split('\n').filter((l) => /^(BODY=|curl )/.test(l));
    expect(lines).toHaveLength(3);
    // And how to undo it: SSO left on would send sign-ins to an identity provider that is gone.
    expect(done).toContain(`curl -sk -H "$AUTH" -X DELETE $API/v1/cluster/sso`);
    // curl as typed, plus the status of its answer on a line of its own (this -w last: it wins).
    const statusToo = `curl() { command curl "$@" -w '\\n%{http_code}'; }`;
    for (const line of lines) {
      const res = paste(line, dir, { API: server.url, AUTH: auth() }, statusToo);
      expect(res.status, res.stderr).toBe(0);
      expect(res.stdout.split('\n').at(-1), `${line}\n${res.stdout}`).toBe('200');
    }
    const sso = await request(`${server.url}/v1/cluster/sso`, { headers: { authorization: `JWT ${token}` } });
    expect(sso.json).toMatchObject({
      control_plane: true,
      issuer: { id: `${idpOrigin()}/simplesaml/saml2/idp/metadata.php` },
      service: { saml2: { entity_id: `${server.url}/sp` } },
    });
  });

  /** The browser's way: Tessera's login sends it to the IdP, whose answer it posts to Tessera's consumer. */
  async function signIn(username: string, password: string) {
    const start = await fetch(`${server.url}/v1/cluster/sso/saml/login`, { redirect: 'manual' });
    expect(start.status).toBe(302);
    const location = start.headers.get('location')!;
    expect(location.startsWith(`${idpOrigin()}/simplesaml/saml2/idp/SSOService.php?SAMLRequest=`)).toBe(true);
    const startCookie = start.headers
      .getSetCookie()
      .find((c) => c.startsWith('tessera_sso_start='))!
      .split(';')[0]!;
    const answer = await new IdpBrowser(idpOrigin()).signIn(location, username, password);
    expect(answer.action).toBe(`${server.url}/v1/cluster/sso/saml/acs`);
    const consumer = await fetch(answer.action, {
      method: 'POST',
      body: new URLSearchParams({ SAMLResponse: answer.SAMLResponse }),
      redirect: 'manual',
    });
    expect(consumer.status).toBe(303);
    const code = consumer.headers
      .getSetCookie()
      .find((c) => c.startsWith('tessera_sso='))
      ?.split(';')[0];
    return { location: consumer.headers.get('location'), cookies: [code, startCookie] };
  }

  it('signs alice in through it, a Cluster Member; bob is refused (sso_no_role)', async () => {
    const alice = await signIn('alice', 'alice-password-1');
    expect(alice.location).toBe('/?sso=signed_in');
    const exchanged = await fetch(`${server.url}/v1/sso/exchange`, {
      method: 'POST',
      headers: { cookie: alice.cookies.join('; '), 'content-type': 'application/json' },
      body: '{}',
    });
    expect(exchanged.status).toBe(200);
    const { access_token } = (await exchanged.json()) as { access_token: string };
    expect(decodeJwt(access_token).payload).toMatchObject({ username: 'alice@example.org', roles: ['cluster_member'] });

    const bob = await signIn('bob', 'bob-password-1');
    expect(bob.location).toBe('/?sso_error=sso_no_role');
  });

  it('stops at Ctrl-C and takes its files away, leaving sp.crt and sp.key', async () => {
    const files = /"@(\/[^"]+)\/idp\.crt"/.exec(out)?.[1];
    expect(files && existsSync(files)).toBe(true);
    idp.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(existsSync(files!)).toBe(false);
    expect(existsSync(path.join(dir, 'sp.key'))).toBe(true);
  });
});
