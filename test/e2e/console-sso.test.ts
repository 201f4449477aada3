import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, browserAvailable, launchBrowser } from '../helpers/browser.js';
import { basic, FAST_ARGON2_ENV, request, type ServeProcess, startServe } from '../helpers/cli.js';
import { selfSigned, simpleSamlPhpHere, startIdp, type TestIdp } from '../helpers/simplesamlphp.js';

const ADMIN = 'root';
const ADMIN_PASSWORD = 'Root-password-1';

/**
 * SSO in the console, as an operator lives it: the real server (`tessera serve`), a real
 * identity provider (SimpleSAMLphp) and a real browser (Chromium). The console is reached at
 * `localhost` and the IdP at `127.0.0.1`: two sites, as a company's IdP is to a cluster.
 */
describe.runIf(simpleSamlPhpHere() && browserAvailable())('SSO in the web console (Chromium, SimpleSAMLphp)', () => {
  let dir: string;
  let server: ServeProcess;
  let idp: TestIdp;
  let browser: Browser;
  let site: string;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tessera-console-sso-'));
    server = await startServe(['--no-tls'], {
      ...FAST_ARGON2_ENV,
      TESSERA_DATA_DIR: dir,
      TESSERA_ADMIN_USERNAME: ADMIN,
      TESSERA_ADMIN_PASSWORD: ADMIN_PASSWORD,
    });
    site = server.url.replace('127.0.0.1', 'localhost');
    idp = await startIdp([
      { username: 'alice', password: 'alice-pw', email: 'alice@example.com', firstName: 'Alice', roles: ['1'] },
      { username: 'bob', password: 'bob-pw', email: 'bob@example.com', roles: [] },
    ]);
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await idp?.stop();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    context.setDefaultTimeout(10_000);
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (e) => {
      throw e;
    });
    return page;
  }

  /** From the console's sign-in page through the IdP's login form, back to the console. */
  async function signInWithSso(page: Page, username: string, password: string) {
    await page.goto(site);
    await page.getByRole('link', { name: 'Sign in with SSO' }).click();
    await page.waitForURL((url) => url.origin === new URL(idp.entityId).origin);
    await page.locator('input[name="username"]').fill(username);
    await page.locator('input[name="password"]').fill(password);
    await page.locator('input[name="password"]').press('Enter');
    await page.waitForURL((url) => url.origin === site);
  }

  it("an admin sets SSO up on its page: IdP metadata, both certificates, this cluster's address, on", async () => {
    const page = await newPage();
    await page.goto(site);
    await page.getByLabel('Username').fill(ADMIN);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'SSO' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Download SP metadata' }).isDisabled()).toBe(true);

    const metadataFile = path.join(dir, 'idp-metadata.xml');
    writeFileSync(metadataFile, await idp.metadataXml());
    await page.getByLabel('Metadata file (XML)').setInputFiles(metadataFile);
    await page.getByRole('button', { name: 'Upload metadata' }).click();
    await page.getByText('Identity provider metadata read.').waitFor();
    expect(await page.getByLabel('Identity provider entity ID').inputValue()).toBe(idp.entityId);

    const sp = selfSigned(dir, 'sp', 'tessera-sp');
    await page.getByLabel('Certificate (PEM)', { exact: true }).fill(sp.certificate);
    await page.getByLabel('Private key (PEM)').fill(sp.key);
    await page.getByRole('button', { name: 'Set service certificate' }).click();
    await page.getByText('Service certificate set.').waitFor();
    await page.getByLabel('Identity provider certificate (PEM)').fill(idp.certificate);
    await page.getByRole('button', { name: 'Set identity provider certificate' }).click();
    await page.getByText('Identity provider certificate set.').waitFor();

    await page.getByLabel("This cluster's address").fill(site);
    await page.getByLabel('Sign-in with SSO for this console').check();
    await page.getByRole('button', { name: 'Save SSO' }).click();
    await page.getByText('SSO settings saved.').waitFor();
    await expect.poll(() => page.getByText(`${site}/v1/cluster/sso/saml/acs`).count()).toBe(1);
    expect(await accessibilityViolations(page)).toEqual([]);

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download SP metadata' }).click();
    const metadata = await (await download)
      .path()
      .then((p) => import('node:fs').then((fs) => fs.readFileSync(p, 'utf8')));
    expect(metadata).toContain(`entityID="${site}/sp"`);

    const sso = await request(`${server.url}/v1/cluster/sso`, {
      headers: { authorization: basic(ADMIN, ADMIN_PASSWORD) },
    });
    expect(sso.json).toMatchObject({
      control_plane: true,
      issuer: { id: idp.entityId },
      service: { address: site, saml2: { entity_id: `${site}/sp` } },
    });
    idp.trustSp({
      entityId: `${site}/sp`,
      acsUrl: `${site}/v1/cluster/sso/saml/acs`,
      sloUrl: `${site}/v1/cluster/sso/saml/slo`,
      certificate: sp.certificate,
    });
  });

  it('signs an operator in through the identity provider, and out of both', async () => {
    const page = await newPage();
    await signInWithSso(page, 'alice', 'alice-pw');
    await expect.poll(() => page.locator('header .who').textContent()).toContain('alice@example.com');
    expect(new URL(page.url()).search).toBe(''); // the step's marker is gone from the address bar and history
    expect(await page.context().cookies()).not.toContainEqual(expect.objectContaining({ name: 'tessera_sso' }));
    // Its password is the identity provider's: My password says so before anything is typed.
    await page.getByRole('link', { name: 'My password' }).click();
    await page.getByText('You sign in with SSO: your password is kept by your identity provider.').waitFor();
    expect(await page.getByLabel('Current password').count()).toBe(0);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('Signed out, at your identity provider too.').waitFor();
    // The IdP's session is over: SSO asks for the password again.
    await page.getByRole('link', { name: 'Sign in with SSO' }).click();
    await page.locator('input[name="password"]').waitFor();
  });

  it('says so when the identity provider maps a person to no role', async () => {
    const page = await newPage();
    await signInWithSso(page, 'bob', 'bob-pw');
    await page.getByRole('alert').filter({ hasText: 'gives you no role' }).waitFor();
    expect(await page.getByLabel('Username').isVisible()).toBe(true);
  });

  it('asks before taking a sign-in this browser did not start (IdP-initiated), naming the account', async () => {
    const page = await newPage();
    await page.goto(
      `${new URL(idp.entityId).origin}/simplesaml/saml2/idp/SSOService.php?spentityid=${encodeURIComponent(`${site}/sp`)}`,
    );
    await page.locator('input[name="username"]').fill('alice');
    await page.locator('input[name="password"]').fill('alice-pw');
    await page.locator('input[name="password"]').press('Enter');
    await page.getByText('Continue as alice@example.com?').waitFor();
    expect(await page.locator('header .who').count()).toBe(0);
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => page.locator('header .who').textContent()).toContain('alice@example.com');
  });

  it('clears SSO only when asked twice; then the sign-in page offers it no more', async () => {
    const page = await newPage();
    await page.goto(site);
    await page.getByLabel('Username').fill(ADMIN);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Signed in first: until then the sign-in page's "Sign in with SSO" is the one link named SSO.
    await expect.poll(() => page.locator('header .who').textContent()).toContain(ADMIN);
    await page.getByRole('link', { name: 'SSO', exact: true }).click();
    await page.getByRole('button', { name: 'Clear SSO' }).click();
    await page.getByRole('button', { name: 'Keep SSO' }).click();
    expect((await request(`${server.url}/v1/sso`)).json.control_plane).toBe(true);
    await page.getByRole('button', { name: 'Clear SSO' }).click();
    await page.getByRole('button', { name: 'Yes, clear SSO' }).click();
    await page.getByText('SSO cleared: no one signs in with it.').waitFor();
    expect((await request(`${server.url}/v1/sso`)).json.control_plane).toBe(false);
    const other = await newPage();
    await other.goto(site);
    await other.getByLabel('Username').waitFor();
    expect(await other.getByRole('link', { name: 'Sign in with SSO' }).count()).toBe(0);
  });
});
