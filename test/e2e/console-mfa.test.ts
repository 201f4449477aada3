import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as OTPAuth from 'otpauth';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, browserAvailable, launchBrowser } from '../helpers/browser.js';
import { basic, FAST_ARGON2_ENV, request, type ServeProcess, startServe } from '../helpers/cli.js';

const ADMIN = 'root';
const ADMIN_PASSWORD = 'Root-password-1';
/** Cluster viewers (built-in role 3): one with a passkey, one with an authenticator app. */
const PIA = 'pia';
const PIA_PASSWORD = 'Pia-password-1';
const TOM = 'tom';
const TOM_PASSWORD = 'Tom-password-1';
/** With an authenticator app set up through the API. */
const UNA = 'una';
const UNA_PASSWORD = 'Una-password-1';
/** Given a role that requires a second factor, while it has none. */
const EVE = 'eve';
const EVE_PASSWORD = 'Eve-password-1';

/** A port free now, for a server whose public URL must name it before it starts. */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = net.createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A second factor in the web console, in a real browser (Debian's Chromium) against the real CLI server: passkeys
 * through Chromium's virtual authenticator (the DevTools WebAuthn domain), authenticator apps with codes computed
 * here. The console is opened at http://localhost:<port>, the server's public URL: WebAuthn's relying party is a
 * name (localhost), never an IP address.
 */
describe.skipIf(!browserAvailable())('web console: second factor (Chromium)', () => {
  let dataDir: string;
  let server: ServeProcess;
  /** The console's address as the browser opens it, and the server's public URL. */
  let site: string;
  let browser: Browser;
  let context: BrowserContext | undefined;
  const uids: Record<string, number> = {};

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-console-mfa-'));
    const port = await freePort();
    site = `http://localhost:${port}`;
    // The later --listen wins over the helper's 127.0.0.1:0.
    server = await startServe(
      ['--no-tls', '--auth-rate-limit', '0', '--listen', `127.0.0.1:${port}`, '--public-url', site],
      {
        ...FAST_ARGON2_ENV,
        TESSERA_DATA_DIR: dataDir,
        TESSERA_ADMIN_USERNAME: ADMIN,
        TESSERA_ADMIN_PASSWORD: ADMIN_PASSWORD,
      },
    );
    for (const [name, password] of [
      [PIA, PIA_PASSWORD],
      [TOM, TOM_PASSWORD],
    ] as const) {
      const made = await asAdmin('POST', '/v1/users', { name, password, role_uids: [3] });
      expect(made.status).toBe(200);
      uids[name] = made.json.uid;
    }
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The API as the admin, with Basic credentials. */
  const asAdmin = (method: string, url: string, body?: unknown) =>
    request(`${server.url}${url}`, {
      method,
      headers: { authorization: basic(ADMIN, ADMIN_PASSWORD), 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  /** What the API says of a user's second factors. */
  const factorsOf = async (name: string) => (await asAdmin('GET', `/v1/users/${uids[name]}/mfa`)).json;

  /** What has the focus: its aria-label, else its label, else its text. */
  const focused = (page: Page) =>
    page.evaluate(() => {
      const el = document.activeElement as HTMLInputElement | null;
      return el?.getAttribute('aria-label') ?? el?.labels?.[0]?.textContent ?? el?.textContent?.trim();
    });

  /** A page of a fresh browser profile at the console, not signed in; with a virtual passkey authenticator if asked. */
  async function open(options: { authenticator?: boolean } = {}) {
    await context?.close();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(10_000); // a failing step says which, before the test's own timeout
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    let cdp: CDPSession | undefined;
    let authenticatorId = '';
    if (options.authenticator) {
      cdp = await context.newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: {
          protocol: 'ctap2',
          transport: 'internal',
          hasResidentKey: true,
          hasUserVerification: true,
          isUserVerified: true,
          automaticPresenceSimulation: true,
        },
      }));
    }
    await page.goto(`${site}/`);
    /** Whether the authenticator verifies the person (fingerprint, PIN) from now on. */
    const userVerified = (isUserVerified: boolean) =>
      cdp!.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified });
    const credentials = async () => (await cdp!.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
    return { page, pageErrors, userVerified, credentials };
  }

  /** The password step; the second one (if asked) is the caller's. */
  async function password(page: Page, username: string, secret: string) {
    const form = page.getByRole('form', { name: 'Sign in' });
    await form.getByLabel('Username').fill(username);
    await form.getByLabel('Password', { exact: true }).fill(secret);
    await form.getByRole('button', { name: 'Sign in' }).click();
  }

  /** Signed in as this user; if not, the failure says what the page shows instead. */
  async function signedInAs(page: Page, username: string) {
    try {
      await expect.poll(() => page.locator('header .who').textContent()).toContain(username);
    } catch (err) {
      const shown = await page
        .locator('main')
        .textContent()
        .catch(() => '(no page)');
      throw new Error(`not signed in as ${username}; the page shows:\n${shown}`, { cause: err });
    }
  }

  async function signOut(page: Page) {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('form', { name: 'Sign in' }).waitFor();
  }

  /** The second step of a sign-in, once the password was right. */
  const secondStep = async (page: Page) => {
    try {
      await page.getByRole('heading', { name: 'Second factor', level: 1 }).waitFor();
    } catch (err) {
      const shown = await page
        .locator('main')
        .textContent()
        .catch(() => '(no page)');
      throw new Error(`no second step; the page shows:\n${shown}`, { cause: err });
    }
    return page.locator('main');
  };

  /** Codes given already (a server may refuse one twice): the next one of the app, waiting for its next period if need be. */
  const used = new Set<string>();
  async function codeOf(totp: OTPAuth.TOTP): Promise<string> {
    for (;;) {
      const period = totp.period * 1000;
      const left = period - (Date.now() % period);
      const code = totp.generate();
      if (!used.has(code) && left > 3000) {
        used.add(code);
        return code;
      }
      await sleep(left + 250);
    }
  }

  /** A wrong code for this app now (not its code of this period nor of the next or last one). */
  const wrongCode = (totp: OTPAuth.TOTP) => {
    const near = [-1, 0, 1].map((w) => totp.generate({ timestamp: Date.now() + w * totp.period * 1000 }));
    let n = 123456;
    while (near.includes(String(n).padStart(6, '0'))) n = (n + 1) % 1_000_000;
    return String(n).padStart(6, '0');
  };

  /** Recovery codes shown once: read, copied, downloaded, then the dialog closed with `close`. */
  async function takeRecoveryCodes(page: Page, close = 'I have saved them') {
    const dialog = page.getByRole('dialog', { name: 'Your recovery codes' });
    await dialog.waitFor();
    const codes = (await dialog.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').allTextContents())
      .map((c) => c.trim())
      .filter(Boolean);
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    expect(await dialog.textContent()).toContain('shown this once');
    expect(await accessibilityViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Copy codes' }).click();
    await dialog.getByText('Copied.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(codes.join('\n'));
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      dialog.getByRole('link', { name: 'Download (.txt)' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('tessera-recovery-codes.txt');
    const text = readFileSync(await download.path(), 'utf8');
    for (const code of codes) expect(text).toContain(code);
    await dialog.getByRole('button', { name: close }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    return codes;
  }

  /** Sets up an authenticator app on the open Security page: its secret read from the page, a code computed here. */
  async function setUpApp(page: Page, name: string) {
    const setup = page.getByRole('form', { name: 'Set up an authenticator app' });
    await setup.getByLabel('Name of the app (optional)').fill(name);
    const [made] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/mfa/totp') && r.request().method() === 'POST'),
      setup.getByRole('button', { name: 'Set up an authenticator app' }).click(),
    ]);
    const answer = await made.json();
    const verify = page.getByRole('form', { name: 'Verify the authenticator app' });
    await verify.waitFor();
    // The QR code: an image of the otpauth:// URL, with words for those who do not see it; the key as text beside it.
    const qr = verify.getByRole('img', { name: /QR code/ });
    await expect.poll(() => qr.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    const secret = (await verify.getByLabel('Or type this setup key in the app').inputValue()).replace(/\s/g, '');
    expect(secret).toMatch(/^[A-Z2-7]+=*$/);
    expect(secret).toBe(answer.secret);
    expect((OTPAuth.URI.parse(answer.otpauth_url) as OTPAuth.TOTP).secret.base32).toBe(secret);
    await expect.poll(() => focused(page)).toBe('Code from the app');
    const code = verify.getByLabel('Code from the app');
    expect([await code.getAttribute('autocomplete'), await code.getAttribute('inputmode')]).toEqual([
      'one-time-code',
      'numeric',
    ]);
    expect(await accessibilityViolations(page)).toEqual([]);
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) });
    // A wrong code is refused in words, and the same setup goes on.
    await code.fill(wrongCode(totp));
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/mfa/totp/verify')),
      verify.getByRole('button', { name: 'Verify' }).click(),
    ]);
    await expect.poll(() => verify.getByRole('alert').textContent()).toContain('That code is not right');
    // The server's refusal of a wrong code at setup: 400 invalid_mfa_response (not the login's 401 invalid_mfa_code).
    expect([refused.status(), (await refused.json()).error_code]).toEqual([400, 'invalid_mfa_response']);
    await code.fill(await codeOf(totp));
    await verify.getByRole('button', { name: 'Verify' }).click();
    return totp;
  }

  /** A factor's row on the Security page, by its name. */
  const factorRow = (page: Page, name: string) =>
    page
      .getByRole('table', { name: 'Your second factors' })
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name, exact: true }) });

  it('registers a passkey on the Security page, signs in with it (refused when it cannot verify the person), and removes it', async () => {
    const { page, pageErrors, userVerified, credentials } = await open({ authenticator: true });
    await password(page, PIA, PIA_PASSWORD);
    await signedInAs(page, PIA);
    await page.getByRole('link', { name: 'Security' }).click();
    await page.getByText('You have no second factor yet').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);

    const add = page.getByRole('form', { name: 'Add a passkey or security key' });
    await add.getByLabel('Passkey name').fill('laptop');
    await add.getByRole('button', { name: 'Add passkey' }).click();
    // The first factor brings the recovery codes, shown once.
    const codes = await takeRecoveryCodes(page);
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Added the passkey laptop');
    const row = factorRow(page, 'laptop');
    await row.waitFor();
    expect(await row.getByRole('cell').nth(0).textContent()).toBe('Passkey or security key');
    expect(await row.getByRole('cell').nth(2).textContent()).toBe('never');
    await page.getByText('10 recovery codes left.').waitFor();
    expect(await credentials()).toHaveLength(1);
    const listed = await factorsOf(PIA);
    expect(listed).toMatchObject({ factors: [{ type: 'webauthn', name: 'laptop' }], recovery_codes_remaining: 10 });
    const before = (await asAdmin('GET', '/v1/users')).json as { name: string; mfa_enabled?: boolean }[];
    expect(before.find((u) => u.name === PIA)?.mfa_enabled).toBe(true);
    expect(before.find((u) => u.name === TOM)?.mfa_enabled ?? false).toBe(false);
    // The contract's user object says it either way (soft: the console reads a missing one as false).
    expect(before.find((u) => u.name === TOM)).not.toHaveProperty('mfa_enabled'); // said only when true
    expect(codes.length).toBe(10);

    // Signed out, the password alone no longer signs in: the passkey does.
    await signOut(page);
    await password(page, PIA, PIA_PASSWORD);
    let step = await secondStep(page);
    const passkey = step.getByRole('button', { name: 'Use a passkey' });
    await passkey.waitFor();
    expect(await page.locator('header').count()).toBe(0);
    expect(await accessibilityViolations(page)).toEqual([]);
    await passkey.click();
    await signedInAs(page, PIA);

    // An authenticator that cannot verify the person (no fingerprint, a wrong PIN): refused, and said so.
    await signOut(page);
    await userVerified(false);
    await password(page, PIA, PIA_PASSWORD);
    step = await secondStep(page);
    await step.getByRole('button', { name: 'Use a passkey' }).click();
    await expect.poll(() => step.getByRole('alert').textContent()).toMatch(/passkey/i);
    expect(await page.locator('header').count()).toBe(0);
    // Verified again, the same step goes on.
    await userVerified(true);
    await step.getByRole('button', { name: 'Use a passkey' }).click();
    await signedInAs(page, PIA);

    // Removed (a factor was proven minutes ago): the password alone signs in again.
    await page.getByRole('link', { name: 'Security' }).click();
    await factorRow(page, 'laptop').getByRole('button', { name: 'Remove laptop' }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove laptop?' });
    expect(await confirm.textContent()).toContain('your only second factor');
    expect(await focused(page)).toBe('Cancel');
    await confirm.getByRole('button', { name: 'Remove laptop' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Removed laptop.');
    await page.getByText('You have no second factor yet').waitFor();
    // At once on this node (the user's reads dropped when its factors change).
    const passwordAlone = () =>
      request(`${server.url}/v1/users/authorize`, {
        method: 'POST',
        body: JSON.stringify({ username: PIA, password: PIA_PASSWORD }),
      }).then((r) => [r.status, r.json.error_code]);
    expect(await passwordAlone()).toEqual([200, undefined]);
    expect(await factorsOf(PIA)).toMatchObject({ factors: [], recovery_codes_remaining: 0 });
    const users = (await asAdmin('GET', '/v1/users')).json as { name: string; mfa_enabled?: boolean }[];
    expect(users.find((u) => u.name === PIA)?.mfa_enabled ?? false).toBe(false);
    await expect.poll(passwordAlone).toEqual([200, undefined]);
    await signOut(page);
    await password(page, PIA, PIA_PASSWORD);
    await signedInAs(page, PIA);
    expect(pageErrors).toEqual([]);
  }, 120_000); // a code of the app waits for its next period: up to 30 s

  it('sets up an authenticator app (QR code and key), then signs in with a recovery code and with a code of the app', async () => {
    const { page, pageErrors } = await open();
    await password(page, TOM, TOM_PASSWORD);
    await signedInAs(page, TOM);
    await page.getByRole('link', { name: 'Security' }).click();
    const totp = await setUpApp(page, 'phone');
    const codes = await takeRecoveryCodes(page);
    const row = factorRow(page, 'phone');
    await row.waitFor();
    expect(await row.getByRole('cell').nth(0).textContent()).toBe('Authenticator app');
    expect((await factorsOf(TOM)).factors).toMatchObject([{ type: 'totp', name: 'phone' }]);

    // The second step: the app's code asked for first, a wrong one refused in words, a recovery code instead.
    await signOut(page);
    await password(page, TOM, TOM_PASSWORD);
    const step = await secondStep(page);
    const code = step.getByLabel('Authenticator code');
    expect([await code.getAttribute('autocomplete'), await code.getAttribute('inputmode')]).toEqual([
      'one-time-code',
      'numeric',
    ]);
    await expect.poll(() => focused(page)).toBe('Authenticator code');
    expect(await step.getByRole('button', { name: 'Use a passkey' }).count()).toBe(0); // it has none
    expect(await accessibilityViolations(page)).toEqual([]);
    await code.fill(wrongCode(totp));
    await step.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => step.getByRole('alert').textContent()).toContain('That code is not right');
    await step.getByRole('button', { name: 'Use a recovery code' }).click();
    await expect.poll(() => focused(page)).toBe('Recovery code');
    expect(await step.getByLabel('Authenticator code').count()).toBe(0);
    await step.getByLabel('Recovery code').fill(codes[0]!);
    await step.getByRole('button', { name: 'Verify' }).click();
    await signedInAs(page, TOM);
    await page.getByRole('link', { name: 'Security' }).click();
    await page.getByText('9 recovery codes left.').waitFor();

    // A used recovery code is refused; the app's code signs in.
    await signOut(page);
    await password(page, TOM, TOM_PASSWORD);
    await secondStep(page);
    await step.getByRole('button', { name: 'Use a recovery code' }).click();
    await step.getByLabel('Recovery code').fill(codes[0]!);
    await step.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => step.getByRole('alert').textContent()).toContain('recovery code is not right');
    await step.getByRole('button', { name: 'Use your authenticator app' }).click();
    await step.getByLabel('Authenticator code').fill(await codeOf(totp));
    await step.getByRole('button', { name: 'Verify' }).click();
    await signedInAs(page, TOM);

    // New recovery codes (a factor proven just now): shown once, and the count is ten again.
    await page.getByRole('link', { name: 'Security' }).click();
    await page.getByRole('button', { name: 'New recovery codes' }).click();
    await page
      .getByRole('dialog', { name: 'Make new recovery codes?' })
      .getByRole('button', { name: 'Make new recovery codes' })
      .click();
    const fresh = await takeRecoveryCodes(page);
    expect(fresh.filter((c) => codes.includes(c))).toEqual([]);
    await page.getByText('10 recovery codes left.').waitFor();
    expect(pageErrors).toEqual([]);
  }, 120_000); // a code of the app waits for its next period: up to 30 s

  it("an admin resets a user's second factor from the Users page: the password alone signs it in again", async () => {
    expect((await factorsOf(TOM)).factors).toHaveLength(1); // the app of the test before
    const { page, pageErrors } = await open();
    await password(page, ADMIN, ADMIN_PASSWORD);
    await signedInAs(page, ADMIN);
    await page.getByRole('link', { name: 'Users' }).click();
    const rowOf = (name: string) =>
      page.getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) });
    /** Whether the user's "Signs in with" cell says it has a second factor. */
    const secondFactor = async (name: string) =>
      (await rowOf(name).getByRole('cell').nth(2).textContent())?.includes('+ second factor') ? 'on' : 'off';
    await expect.poll(() => secondFactor(TOM)).toBe('on');
    expect(await secondFactor(PIA)).toBe('off');
    expect(await accessibilityViolations(page)).toEqual([]);

    // Only a user with a factor has the action.
    await page.getByRole('button', { name: `Actions for ${PIA}` }).click();
    expect(
      await page
        .getByRole('menu', { name: `Actions for ${PIA}` })
        .getByRole('menuitem')
        .allTextContents(),
    ).not.toContain('Reset second factor');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: `Actions for ${TOM}` }).click();
    await page
      .getByRole('menu', { name: `Actions for ${TOM}` })
      .getByRole('menuitem', { name: 'Reset second factor' })
      .click();
    const confirm = page.getByRole('dialog', { name: `Reset the second factor of ${TOM}?` });
    expect(await confirm.textContent()).toMatch(/recovery codes are removed/);
    expect(await focused(page)).toBe('Cancel');
    expect(await accessibilityViolations(page)).toEqual([]);
    // Cancelled: nothing happens.
    await page.keyboard.press('Escape');
    await expect.poll(() => confirm.count()).toBe(0);
    expect((await factorsOf(TOM)).factors).toHaveLength(1);

    await page.getByRole('button', { name: `Actions for ${TOM}` }).click();
    await page
      .getByRole('menu', { name: `Actions for ${TOM}` })
      .getByRole('menuitem', { name: 'Reset second factor' })
      .click();
    await confirm.getByRole('button', { name: 'Reset second factor' }).click();
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toContain(`Reset the second factor of ${TOM}`);
    await expect.poll(() => secondFactor(TOM)).toBe('off');
    await expect.poll(() => focused(page)).toBe(`Actions for ${TOM}`);
    expect(await factorsOf(TOM)).toMatchObject({ factors: [], recovery_codes_remaining: 0 });
    const token = await request(`${server.url}/v1/users/authorize`, {
      method: 'POST',
      body: JSON.stringify({ username: TOM, password: TOM_PASSWORD }),
    });
    expect(token.status).toBe(200);
    expect(token.json.access_token).toEqual(expect.any(String));
    expect(pageErrors).toEqual([]);
  }, 120_000); // a code of the app waits for its next period: up to 30 s

  it('a role requires a second factor (its checkbox): its holder without one may only set one up, then signs in with it', async () => {
    const { page, pageErrors } = await open();
    await password(page, ADMIN, ADMIN_PASSWORD);
    await signedInAs(page, ADMIN);
    await page.getByRole('link', { name: 'Roles' }).click();
    const create = page.getByRole('form', { name: 'Create role' });
    await create.getByLabel('Role name').fill('Operators');
    await create.getByLabel('Management level').selectOption('cluster_viewer');
    await create.getByRole('checkbox', { name: 'Second factor required' }).check();
    await create.getByRole('button', { name: 'Create role' }).click();
    const row = page.getByRole('row', { name: /Operators/ });
    /** The role's "Second factor" column. */
    const secondFactor = () => row.getByRole('cell').nth(2).textContent();
    await expect.poll(secondFactor).toBe('required');
    const roleOf = async () =>
      ((await asAdmin('GET', '/v1/roles')).json as { uid: number; name: string; mfa_required?: boolean }[]).find(
        (r) => r.name === 'Operators',
      )!;
    const role = await roleOf();
    expect(role).toMatchObject({ management: 'cluster_viewer', mfa_required: true });
    // The role object says it when it is on only (absent: off, as every role of the product).
    expect((await asAdmin('GET', '/v1/roles/4')).json).not.toHaveProperty('mfa_required');
    expect(await accessibilityViolations(page)).toEqual([]);

    // The edit form shows and changes it.
    await page.getByRole('button', { name: 'Edit role Operators' }).click();
    const box = page.getByRole('dialog').getByRole('checkbox', { name: 'Second factor required for Operators' });
    expect(await box.isChecked()).toBe(true);
    await box.uncheck();
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toContain('Operators no longer requires a second factor');
    expect((await roleOf()).mfa_required ?? false).toBe(false);
    await expect.poll(secondFactor).toBe('optional');
    await page.getByRole('button', { name: 'Edit role Operators' }).click();
    await page.getByRole('dialog').getByRole('checkbox', { name: 'Second factor required for Operators' }).check();
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toContain('Operators now requires a second factor');
    expect((await roleOf()).mfa_required).toBe(true);
    await expect.poll(secondFactor).toBe('required');

    // Its holder, with no factor yet: a token for setting one up, and the Security page only.
    const made = await asAdmin('POST', '/v1/users', { name: EVE, password: EVE_PASSWORD, role_uids: [role.uid] });
    expect(made.status).toBe(200);
    uids[EVE] = made.json.uid;
    await signOut(page);
    await password(page, EVE, EVE_PASSWORD);
    await signedInAs(page, EVE);
    await page.getByRole('heading', { name: 'Security', level: 1 }).waitFor();
    expect(await page.getByRole('alert').first().textContent()).toContain(
      'Your role requires a second factor: set one up, then sign in again',
    );
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()).toEqual([
      'Security',
    ]);
    expect(await page.getByRole('button', { name: 'My API keys' }).count()).toBe(0);
    expect(await accessibilityViolations(page)).toEqual([]);
    const totp = await setUpApp(page, 'phone');
    await takeRecoveryCodes(page, 'I have saved them: sign in again');
    // Signed out, and told to sign in again: now with the second factor, and every page of its role.
    await page.getByRole('form', { name: 'Sign in' }).waitFor();
    expect(await page.getByRole('status').first().textContent()).toContain('Your second factor is set up');
    await password(page, EVE, EVE_PASSWORD);
    const step = await secondStep(page);
    await step.getByLabel('Authenticator code').fill(await codeOf(totp));
    await step.getByRole('button', { name: 'Verify' }).click();
    await signedInAs(page, EVE);
    await expect
      .poll(() => page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents())
      .toEqual(['Events', 'Security', 'My password']);
    await page.getByRole('link', { name: 'Security' }).click();
    await page.getByText('Your role requires a second factor').waitFor();
    expect(await page.getByRole('alert').count()).toBe(0); // no banner any more
    expect(pageErrors).toEqual([]);
  }, 120_000); // a code of the app waits for its next period: up to 30 s
  it('a second step tried too often ends: back to the password, said so', async () => {
    // Una's authenticator app, set up through the API as any client would.
    const made = await asAdmin('POST', '/v1/users', { name: UNA, password: UNA_PASSWORD, role_uids: [3] });
    expect(made.status).toBe(200);
    uids[UNA] = made.json.uid;
    const post = (url: string, body: unknown, token?: string) =>
      request(`${server.url}${url}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
        body: JSON.stringify(body),
      });
    const token = (await post('/v1/users/authorize', { username: UNA, password: UNA_PASSWORD })).json.access_token;
    const app = await post(`/v1/users/${uids[UNA]}/mfa/totp`, {}, token);
    expect(app.status).toBe(200);
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(app.json.secret) });
    const verified = await post(`/v1/users/${uids[UNA]}/mfa/totp/verify`, { code: await codeOf(totp) }, token);
    expect(verified.status).toBe(200);

    const { page, pageErrors } = await open();
    await password(page, UNA, UNA_PASSWORD);
    const step = await secondStep(page);
    const signInForm = page.getByRole('form', { name: 'Sign in' });
    // Five tries of one step (the contract's bound), then one more: the step is over.
    for (let i = 0; i < 6 && (await signInForm.count()) === 0; i++) {
      await step.getByLabel('Authenticator code').fill(wrongCode(totp));
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/v1/users/authorize/mfa')),
        step.getByRole('button', { name: 'Verify' }).click(),
      ]);
    }
    await signInForm.waitFor();
    await expect.poll(() => signInForm.getByRole('alert').textContent()).toContain('enter your password again');
    expect(await signInForm.getByLabel('Username').inputValue()).toBe(UNA);
    expect(await signInForm.getByLabel('Password', { exact: true }).inputValue()).toBe('');
    // Wrong codes count as failed logins here (the cluster's lockout threshold is 5 too): unlocked, should they have locked it.
    expect((await asAdmin('POST', `/v1/users/${uids[UNA]}/unlock`)).status).toBeLessThan(500);
    // The password again, then the right code: signed in.
    await password(page, UNA, UNA_PASSWORD);
    await secondStep(page);
    await step.getByLabel('Authenticator code').fill(await codeOf(totp));
    await step.getByRole('button', { name: 'Verify' }).click();
    await signedInAs(page, UNA);
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
