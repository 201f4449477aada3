import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, launchBrowser } from '../helpers/browser.js';
import { type ClientCertificate, issue, makeCa, type TestCa } from '../helpers/certificates.js';
import { basic, FAST_ARGON2_ENV, request, type ServeProcess, startServe } from '../helpers/cli.js';

const ADMIN = 'root';
const ADMIN_PASSWORD = 'Root-password-1';

/**
 * A page of another site, opened by an operator, that posts a hidden text/plain form to the
 * API (the body reads as JSON) — in a real browser that sends the operator's credentials by
 * itself: Basic it was given, or a client certificate. Nothing may change.
 */
describe.skipIf(!browserAvailable())('a cross-site form in Chromium', () => {
  let dir: string;
  let ca: TestCa;
  let cert: ClientCertificate;
  let server: ServeProcess;
  let attacker: http.Server;
  let attackerUrl: string;
  let browser: Browser;
  const asAdmin = () => ({ authorization: basic(ADMIN, ADMIN_PASSWORD) });
  const api = (pathname: string, options: Parameters<typeof request>[1] = {}) =>
    request(`${server.url}${pathname}`, { ...options, headers: { ...asAdmin(), ...options.headers } });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tessera-csrf-'));
    ca = makeCa(dir, 'CSRF Test CA');
    cert = issue(ca, 'manager', '/O=Example/CN=csrf-manager');
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0'; // the server's own self-signed certificate, for the test's requests
    server = await startServe(['--auth-rate-limit', '0', '--client-ca', ca.certFile], {
      ...FAST_ARGON2_ENV,
      TESSERA_DATA_DIR: path.join(dir, 'data'),
      TESSERA_ADMIN_USERNAME: ADMIN,
      TESSERA_ADMIN_PASSWORD: ADMIN_PASSWORD,
    });
    expect(
      (await api('/v1/cluster', { method: 'PUT', body: JSON.stringify({ mtls_certificate_authentication: true }) }))
        .status,
    ).toBe(200);
    const made = await api('/v1/users', {
      method: 'POST',
      body: JSON.stringify({
        auth_method: 'certificate',
        certificate_subject_line: 'CN=csrf-manager,O=Example',
        role: 'user_manager',
      }),
    });
    expect(made.status).toBe(200);
    // The other site: a page whose form posts, as soon as it loads, a body that reads as JSON.
    attacker = http.createServer((req, res) => {
      const name = new URL(req.url!, 'http://x').searchParams.get('name');
      // text/plain sends `name=value`: the "=" lands inside a string of a field the API takes.
      const field = `{"name":"${name}","password":"Evil-password-123","role":"db_viewer","bdbs_email_alerts":["`;
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<form id="f" method="POST" enctype="text/plain" action="${server.url}/v1/users"><input type="hidden" name='${field}' value='"]}'></form>` +
            `<script>document.getElementById('f').submit()</script>`,
        );
    });
    await new Promise<void>((r) => attacker.listen(0, '127.0.0.1', r));
    attackerUrl = `http://127.0.0.1:${(attacker.address() as import('node:net').AddressInfo).port}`;
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => attacker?.close(r));
    await server?.stop();
    delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    rmSync(dir, { recursive: true, force: true });
  });

  /** Opens the other site's page in a browser with these credentials; resolves with what the form's post was last answered (after any retry with credentials). */
  async function visit(
    name: string,
    context: Parameters<Browser['newContext']>[0],
  ): Promise<{ status: number; body: string }> {
    const ctx = await browser.newContext({ ignoreHTTPSErrors: true, ...context });
    try {
      const page = await ctx.newPage();
      const target = `${server.url}/v1/users`;
      const answers: Response[] = [];
      page.on('response', (r) => r.url() === target && r.request().method() === 'POST' && answers.push(r));
      await page.goto(`${attackerUrl}/?name=${name}`);
      await page.waitForURL(target);
      await page.waitForLoadState('load');
      const last = answers.at(-1)!;
      return { status: last.status(), body: await last.text().catch(() => '') };
    } finally {
      await ctx.close();
    }
  }

  it("makes no user with the operator's Basic credentials the browser was given", async () => {
    const answer = await visit('csrf-basic', { httpCredentials: { username: ADMIN, password: ADMIN_PASSWORD } });
    expect(answer.status, answer.body).not.toBe(200);
    expect((await api('/v1/users')).json.map((u: { name: string }) => u.name)).not.toContain('csrf-basic');
  });

  it("makes no user with the operator's client certificate", async () => {
    const answer = await visit('csrf-cert', {
      clientCertificates: [{ origin: new URL(server.url).origin, certPath: cert.certFile, keyPath: cert.keyFile }],
    });
    expect([answer.status, answer.body]).toEqual([403, expect.stringContaining('cross_site_request')]);
    expect((await api('/v1/users')).json.map((u: { name: string }) => u.name)).not.toContain('csrf-cert');
  });
});
