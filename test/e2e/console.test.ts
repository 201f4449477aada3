import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, browserAvailable, launchBrowser } from '../helpers/browser.js';
import { makeCa } from '../helpers/certificates.js';
import { FAST_ARGON2_ENV, request, type ServeProcess, startServe } from '../helpers/cli.js';
import {
  BASE_DN,
  group,
  groupDn,
  person,
  ROOT_DN,
  ROOT_PASSWORD,
  slapdAvailable,
  startDirectory,
} from '../helpers/slapd.mjs';

const ADMIN = 'root';
const ADMIN_PASSWORD = 'Root-password-1';

/** The web console in a real browser (Debian's Chromium) against the real CLI server. */
describe.skipIf(!browserAvailable())('web console (Chromium)', () => {
  let dataDir: string;
  let server: ServeProcess;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  /** The links of an admin's header, in order. */
  const ADMIN_PAGES = [
    'Users',
    'Roles',
    'Sessions',
    'Events',
    'Policy',
    'LDAP',
    'SSO',
    'Certificates',
    'Keys',
    'Security',
    'My password',
  ];

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-console-'));
    server = await startServe(['--no-tls', '--auth-rate-limit', '0'], {
      ...FAST_ARGON2_ENV,
      TESSERA_DATA_DIR: dataDir,
      TESSERA_ADMIN_USERNAME: ADMIN,
      TESSERA_ADMIN_PASSWORD: ADMIN_PASSWORD,
    });
    // The console signs out after the cluster's cm_session_timeout_minutes: one, for the idle test.
    const basic = `Basic ${Buffer.from(`${ADMIN}:${ADMIN_PASSWORD}`).toString('base64')}`;
    const idle = await request(`${server.url}/v1/cluster`, {
      method: 'PUT',
      headers: { authorization: basic },
      body: JSON.stringify({ cm_session_timeout_minutes: 1 }),
    });
    expect(idle.status).toBe(200);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A fresh browser profile (its own memory: the token lives in the page only). */
  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    context.setDefaultTimeout(10_000); // a failing step says which, before the test's own timeout
    contexts.push(context);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Refused to/.test(m.text())) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(String(e)));
    (page as Page & { problems: string[] }).problems = problems;
    return page;
  }

  async function signIn(page: Page, username: string, password: string) {
    await page.goto(server.url);
    await page.getByLabel('Username').waitFor();
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  async function signedInAs(page: Page, username: string) {
    await expect.poll(() => page.locator('header .who').textContent()).toContain(username);
  }

  const BUILT_IN_OF_LEVEL: Record<string, string> = {
    admin: 'Admin (admin)',
    user_manager: 'User Manager (user_manager)',
    cluster_member: 'Cluster Member (cluster_member)',
    cluster_viewer: 'Cluster Viewer (cluster_viewer)',
    db_member: 'DB Member (db_member)',
    db_viewer: 'DB Viewer (db_viewer)',
    none: 'None (none)',
  };

  /** Ticks the built-in role of this level, and no other, among a form's roles (role_uids is the one source of roles). */
  async function chooseLevel(scope: Page | Locator, level: string) {
    const boxes = scope.getByRole('group', { name: /^Roles/ }).getByRole('checkbox');
    await boxes.first().waitFor();
    for (const box of await boxes.all()) {
      const label = await box.evaluate((e) => e.parentElement?.textContent?.trim() ?? '');
      await box.setChecked(BUILT_IN_OF_LEVEL[level] === label);
    }
  }

  /** Creates a user through the Users page and returns the password it showed once. */
  async function createUser(page: Page, username: string, role: string): Promise<string> {
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByLabel(username.includes('@') ? "New user's email" : "New user's name").fill(username);
    await chooseLevel(page.getByRole('form', { name: 'Create user' }), role);
    await page.getByRole('button', { name: 'Create user' }).click();
    const output = page.getByRole('dialog').getByLabel('Generated password');
    await output.waitFor();
    const password = (await output.textContent())!.trim();
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
    return password;
  }

  /** One of a user's actions, from the row's Actions menu. */
  async function rowAction(page: Page, who: string, action: string) {
    await page.getByRole('button', { name: `Actions for ${who}`, exact: true }).click();
    await page
      .getByRole('menu', { name: `Actions for ${who}` })
      .getByRole('menuitem', { name: action, exact: true })
      .click();
  }

  /** What has the focus: its aria-label, else its label, else its text. */
  const focused = (page: Page) =>
    page.evaluate(() => {
      const el = document.activeElement as HTMLInputElement | null;
      return el?.getAttribute('aria-label') ?? el?.labels?.[0]?.textContent ?? el?.textContent?.trim();
    });

  const DOC_SHOTS = [
    'sign-in',
    'home',
    'roles',
    'sessions',
    'events',
    'policy',
    'ldap',
    'sso',
    'certificates',
    'keys',
    'security',
  ];

  /**
   * At 1280 and 800 px wide: no serious accessibility violation, nothing wider than the window
   * (no sideways scroll), and a screenshot under the temp dir (console-shots/) to look at.
   */
  async function checkPage(page: Page, name: string) {
    const shots = path.join(tmpdir(), 'console-shots');
    mkdirSync(shots, { recursive: true });
    const before = page.viewportSize();
    for (const width of [1280, 800]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForLoadState('networkidle');
      expect(await accessibilityViolations(page), `${name} at ${width}`).toEqual([]);
      const [scrollWidth, innerWidth] = await page.evaluate(() => [
        document.scrollingElement!.scrollWidth,
        window.innerWidth,
      ]);
      expect(scrollWidth, `${name} at ${width}: scrollWidth`).toBeLessThanOrEqual(innerWidth);
      await page.screenshot({ path: path.join(shots, `${name}-${width}.png`), fullPage: true });
      // docs/console-<page>.png: each page as docs/console.md shows it (users: its own test, with more rows).
      if (process.env.UPDATE_SCREENSHOT && width === 1280 && DOC_SHOTS.includes(name))
        await page.screenshot({ path: path.resolve(import.meta.dirname, `../../docs/console-${name}.png`) });
    }
    if (before) await page.setViewportSize(before);
  }

  const api = async (method: string, url: string, token?: string, body?: unknown) =>
    request(`${server.url}${url}`, {
      method,
      headers: { ...(token && { authorization: `Bearer ${token}` }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const adminToken = async () =>
    (await api('POST', '/v1/users/authorize', undefined, { username: ADMIN, password: ADMIN_PASSWORD })).json
      .access_token as string;

  it('signs in (a wrong password said in words) and out; every page is free of serious accessibility problems', async () => {
    const page = await newPage();
    await page.goto(server.url);
    expect(await accessibilityViolations(page)).toEqual([]);

    await signIn(page, ADMIN, 'not-the-password');
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Invalid username or password');

    await page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await signedInAs(page, ADMIN);
    expect(await page.locator('header').textContent()).toContain('(admin)');
    expect(await accessibilityViolations(page)).toEqual([]);
    for (const name of ADMIN_PAGES) {
      await page.getByRole('link', { name }).click();
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.waitForLoadState('networkidle');
      expect(await accessibilityViolations(page), name).toEqual([]);
    }
    // The event log shows the wrong password of a moment ago, and filters by type.
    await page.getByRole('link', { name: 'Events' }).click();
    await expect
      .poll(() => page.getByRole('row').filter({ hasText: 'authorize (refused)' }).filter({ hasText: ADMIN }).count())
      .toBeGreaterThan(0);
    await page.getByLabel('Type').selectOption('user_created');
    await page.getByRole('button', { name: 'Show events' }).click();
    await expect
      .poll(async () => (await page.locator('tbody th').allTextContents()).every((t) => t === 'user_created'))
      .toBe(true);
    expect(await page.locator('tbody tr').count()).toBeGreaterThan(0);
    // Nothing of the session is kept by the browser.
    expect(await page.evaluate(() => localStorage.length + sessionStorage.length + document.cookie.length)).toBe(0);
    expect(page.url()).not.toContain('token');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.getByRole('status').textContent()).toContain('Signed out');
    expect((page as Page & { problems: string[] }).problems).toEqual([]);
  });

  it('creates a user shown once, who signs in elsewhere; a role change ends that session at its next request', async () => {
    const admin = await newPage();
    await signIn(admin, ADMIN, ADMIN_PASSWORD);
    await signedInAs(admin, ADMIN);
    const password = await createUser(admin, 'mia@example.com', 'user_manager');
    expect(password).toMatch(/^[A-Za-z0-9]{20}$/);
    await admin.getByLabel('Search users').fill('MIA@');
    await expect.poll(() => admin.getByRole('row').count()).toBe(2); // the header and mia
    await admin.getByLabel('Search users').fill('');

    const mia = await newPage();
    await signIn(mia, 'mia@example.com', password);
    await signedInAs(mia, 'mia@example.com');
    await mia.getByRole('link', { name: 'Users' }).click();
    await mia
      .getByRole('cell', { name: ADMIN, exact: true })
      .or(mia.getByRole('rowheader', { name: ADMIN, exact: true }))
      .first()
      .waitFor();
    expect(await mia.getByRole('link', { name: 'Policy' }).count()).toBe(0); // admin pages are the admin's

    // A user_manager may not make itself an admin: the API's refusal, in words.
    await rowAction(mia, 'mia@example.com', 'Edit');
    await chooseLevel(mia.getByRole('dialog'), 'admin');
    await mia.getByRole('button', { name: 'Save' }).click();
    // Nor its own roles: nobody changes its own.
    await expect.poll(() => mia.getByRole('dialog').getByRole('alert').textContent()).toMatch(/your own roles/i);
    await mia.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();

    await rowAction(admin, 'mia@example.com', 'Edit');
    await chooseLevel(admin.getByRole('dialog'), 'cluster_viewer');
    await admin.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => admin.getByRole('status').last().textContent()).toContain('Saved mia@example.com');

    await mia.getByRole('link', { name: 'Tessera' }).click(); // the next request: the home page's reads
    await mia.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await mia.getByRole('status').textContent()).toContain('Your session has ended');
    await signIn(mia, 'mia@example.com', password);
    await signedInAs(mia, 'mia@example.com');
    expect(await mia.getByRole('link', { name: 'Users' }).count()).toBe(0);
  });

  it("lists a user's sessions on the Users page and ends one, then all of them: their tokens stop working", async () => {
    const admin = await newPage();
    await signIn(admin, ADMIN, ADMIN_PASSWORD);
    await signedInAs(admin, ADMIN);
    const password = await createUser(admin, 'sid@example.com', 'db_viewer');
    const loginAs = async (agent: string) =>
      (
        await request(`${server.url}/v1/users/authorize`, {
          method: 'POST',
          headers: { 'user-agent': agent },
          body: JSON.stringify({ username: 'sid@example.com', password }),
        })
      ).json.access_token as string;
    const [laptop, script] = [await loginAs('laptop-browser/1.0'), await loginAs('backup-script/2.0')];

    await rowAction(admin, 'sid@example.com', 'Sessions');
    const table = admin.getByRole('table', { name: 'Sessions of sid@example.com' });
    await expect.poll(() => table.getByRole('row').count()).toBe(3); // the header and two sessions
    expect(await table.textContent()).toContain('backup-script/2.0');
    const sid = JSON.parse(Buffer.from(script.split('.')[1]!, 'base64url').toString()).sid as string;
    await admin.getByRole('button', { name: `End session ${sid} of sid@example.com` }).click();
    await expect
      .poll(() => admin.getByRole('dialog').getByRole('status').textContent())
      .toContain('Ended a session of sid@example.com');
    await expect.poll(() => table.getByRole('row').count()).toBe(2);
    expect((await api('GET', '/v1/users/permissions', script)).status).toBe(401);
    expect((await api('GET', '/v1/users/permissions', laptop)).status).toBe(200);

    await admin.getByRole('button', { name: 'End every session of sid@example.com' }).click();
    await expect
      .poll(() => admin.getByRole('dialog').getByRole('status').textContent())
      .toContain('the password is unchanged');
    await admin.getByText('sid@example.com has no live session.').waitFor();
    expect((await api('GET', '/v1/users/permissions', laptop)).status).toBe(401);
    expect(await accessibilityViolations(admin)).toEqual([]);
  });

  it('leads a right but expired password to a new one, and ends signed in', async () => {
    const admin = await newPage();
    await signIn(admin, ADMIN, ADMIN_PASSWORD);
    await signedInAs(admin, ADMIN);
    const password = await createUser(admin, 'noah', 'cluster_member');
    await rowAction(admin, 'noah', 'Expire password');
    await expect
      .poll(() => admin.getByRole('row', { name: /noah/ }).locator('.badge').textContent())
      .toBe('Password expired');

    const noah = await newPage();
    await signIn(noah, 'noah', password);
    await noah.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await expect.poll(() => noah.locator('.rules').textContent()).toContain('at least 8 characters');
    expect(await accessibilityViolations(noah)).toEqual([]);
    await noah.getByLabel('New password', { exact: true }).fill('password');
    await noah.getByLabel('Repeat new password').fill('password');
    await noah.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => noah.getByRole('alert').textContent()).toContain('most common passwords');
    await noah.getByLabel('New password', { exact: true }).fill('Noah-new-passphrase-7');
    await noah.getByLabel('Repeat new password').fill('Noah-new-passphrase-8');
    await noah.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => noah.getByRole('alert').textContent()).toContain('do not match');
    await noah.getByLabel('Repeat new password').fill('Noah-new-passphrase-7');
    await noah.getByRole('button', { name: 'Change password' }).click();
    await signedInAs(noah, 'noah');
    expect(
      (await api('POST', '/v1/users/authorize', undefined, { username: 'noah', password: 'Noah-new-passphrase-7' }))
        .status,
    ).toBe(200);
  });

  it('shows a lockout as a lockout, and an admin unlocks', async () => {
    const admin = await newPage();
    await signIn(admin, ADMIN, ADMIN_PASSWORD);
    await signedInAs(admin, ADMIN);
    const password = await createUser(admin, 'olga', 'db_viewer');

    const olga = await newPage();
    for (let i = 0; i < 5; i++) {
      await signIn(olga, 'olga', `wrong-password-${i}`);
      await expect.poll(() => olga.getByRole('alert').textContent()).toContain('Invalid username or password');
    }
    await signIn(olga, 'olga', password);
    await expect
      .poll(() => olga.getByRole('alert').textContent())
      .toMatch(/Account locked.*an admin can unlock it now/s);

    await admin.getByRole('link', { name: 'Policy' }).click();
    await admin.getByRole('link', { name: 'Users' }).click();
    const olgaRow = admin.getByRole('row', { name: /olga/ });
    expect(await olgaRow.locator('.badge').textContent()).toBe('Locked');
    await rowAction(admin, 'olga', 'Unlock');
    await expect.poll(() => olgaRow.textContent()).toContain('active');
    expect(await olgaRow.locator('.badge').count()).toBe(0);
    await signIn(olga, 'olga', password);
    await signedInAs(olga, 'olga');
  });

  it('changes the policy, effective at once', async () => {
    const admin = await newPage();
    await signIn(admin, ADMIN, ADMIN_PASSWORD);
    await signedInAs(admin, ADMIN);
    await admin.getByRole('link', { name: 'Policy' }).click();
    // Out of bounds: the browser says so at the field and sends nothing.
    await admin.getByLabel('Minimum password length').fill('300');
    await admin.getByRole('button', { name: 'Save policy' }).click();
    expect(
      await admin.getByLabel('Minimum password length').evaluate((el) => (el as HTMLInputElement).validationMessage),
    ).not.toBe('');
    expect((await api('GET', '/v1/cluster', await adminToken())).json.password_min_length).toBe(8);
    await admin.getByLabel('Minimum password length').fill('12');
    await admin.getByLabel('Require complex passwords').check();
    await admin.getByRole('button', { name: 'Save policy' }).click();
    await expect.poll(() => admin.getByRole('status').last().textContent()).toContain('Saved');
    const cluster = (await api('GET', '/v1/cluster', await adminToken())).json;
    expect(cluster).toMatchObject({ password_min_length: 12, password_complexity: true });
    // A lockout setting goes to where the product keeps it, /v1/cluster/policy.
    await admin.getByLabel('Failed logins before lockout').fill('7');
    await admin.getByRole('button', { name: 'Save policy' }).click();
    await expect
      .poll(async () => (await api('GET', '/v1/cluster/policy', await adminToken())).json.login_lockout_threshold)
      .toBe(7);
    await api('PUT', '/v1/cluster', await adminToken(), { password_min_length: 8, password_complexity: false });
    await api('PUT', '/v1/cluster/policy', await adminToken(), { login_lockout_threshold: 5 });
  });

  it('rotates a key: the new one is listed, staged', async () => {
    const admin = await newPage();
    await signIn(admin, ADMIN, ADMIN_PASSWORD);
    await signedInAs(admin, ADMIN);
    await admin.getByRole('link', { name: 'Keys' }).click();
    await expect.poll(() => admin.getByRole('row').count()).toBe(2); // the header and the active key
    await admin.getByLabel('Algorithm of the new key').selectOption('RS256');
    await admin.getByRole('button', { name: 'Rotate key' }).click();
    await expect.poll(() => admin.getByRole('status').last().textContent()).toMatch(/Staged RS256 key/);
    await expect.poll(() => admin.getByRole('row').count()).toBe(3);
    expect(await admin.getByRole('row', { name: /RS256/ }).textContent()).toContain('next');
  });

  it('changes your own password, and deletes a user only when asked twice (never the last admin)', async () => {
    const admin = await newPage();
    await signIn(admin, ADMIN, ADMIN_PASSWORD);
    await signedInAs(admin, ADMIN);
    const password = await createUser(admin, 'pia', 'cluster_viewer');
    const pia = await newPage();
    await signIn(pia, 'pia', password);
    await signedInAs(pia, 'pia');
    await pia.getByRole('link', { name: 'My password' }).click();
    await pia.getByLabel('Current password').fill(password);
    await pia.getByLabel('New password', { exact: true }).fill('Pia-own-passphrase-1');
    await pia.getByLabel('Repeat new password').fill('Pia-own-passphrase-1');
    await pia.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => pia.getByRole('status').first().textContent()).toContain('Password changed');
    await signedInAs(pia, 'pia');
    expect(
      (await api('POST', '/v1/users/authorize', undefined, { username: 'pia', password: 'Pia-own-passphrase-1' }))
        .status,
    ).toBe(200);

    await rowAction(admin, ADMIN, 'Delete');
    await admin
      .getByRole('dialog')
      .getByRole('button', { name: `Delete ${ADMIN}` })
      .click();
    await expect.poll(() => admin.getByRole('alert').textContent()).toMatch(/admin/);
    // The confirmation names who and what follows; Cancel and Escape keep the user.
    const piaUid = (await api('GET', '/v1/users', await adminToken())).json.find(
      (u: { name: string }) => u.name === 'pia',
    ).uid as number;
    await rowAction(admin, 'pia', 'Delete');
    const dialog = admin.getByRole('dialog', { name: 'Delete pia?' });
    expect(await dialog.textContent()).toMatch(/pia.*can no longer sign in.*every session.*cannot be undone/s);
    expect(await focused(admin)).toBe('Cancel'); // the safe answer has the focus
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await focused(admin)).toBe('Actions for pia');
    await rowAction(admin, 'pia', 'Delete');
    await dialog.waitFor();
    await admin.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await admin.getByRole('rowheader', { name: 'pia', exact: true }).count()).toBe(1);
    expect((await api('GET', `/v1/users/${piaUid}`, await adminToken())).status).toBe(200);
    await rowAction(admin, 'pia', 'Delete');
    await dialog.getByRole('button', { name: 'Delete pia' }).click();
    await expect.poll(() => admin.getByRole('rowheader', { name: 'pia', exact: true }).count()).toBe(0);
    expect((await api('GET', `/v1/users/${piaUid}`, await adminToken())).status).toBe(404);
  });

  it('renews the token of a person at work before it ends', async () => {
    const page = await newPage();
    await page.clock.install();
    await signIn(page, ADMIN, ADMIN_PASSWORD);
    await signedInAs(page, ADMIN);
    const renewed = page.waitForResponse((r) => r.url().endsWith('/v1/users/refresh_jwt'));
    // Five minutes of work (the token lives 300 s; the idle limit is one minute).
    for (let i = 0; i < 10; i++) {
      await page.keyboard.press('Shift');
      await page.clock.fastForward('00:30');
    }
    expect((await renewed).status()).toBe(200);
    await signedInAs(page, ADMIN);
  });

  it('works from the keyboard alone', async () => {
    const page = await newPage();
    await page.goto(server.url);
    await page.getByLabel('Username').waitFor(); // the page renders once its settings are read
    await page.keyboard.press('Tab');
    await page.keyboard.type(ADMIN);
    await page.keyboard.press('Tab');
    await page.keyboard.type(ADMIN_PASSWORD);
    await page.keyboard.press('Enter');
    await signedInAs(page, ADMIN);
    const focused = () => page.evaluate(() => document.activeElement?.textContent?.trim());
    for (let i = 0; i < 15 && (await focused()) !== 'Keys'; i++) await page.keyboard.press('Tab');
    expect(await focused()).toBe('Keys');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Keys' }).waitFor();
  });

  it("signs a person out after the idle time (the cluster's cm_session_timeout_minutes: 1), and their token with them", async () => {
    const page = await newPage();
    await page.clock.install();
    const issued = page.waitForResponse((r) => r.url().endsWith('/v1/users/authorize') && r.status() === 200);
    // On the home page, whose reads the fast-forwards race: a read sent with the token the idle sign-out
    // just ended is refused ("revoked"), and that late refusal must not say anything over the idle notice.
    await page.goto(server.url);
    await page.getByLabel('Username').fill(ADMIN);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const token = (await (await issued).json()).access_token as string;
    await signedInAs(page, ADMIN);
    await page.clock.fastForward('00:30');
    await signedInAs(page, ADMIN); // half the idle time: still in
    await page.clock.fastForward('00:31');
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const said = await page.getByRole('status').textContent();
    expect(said, said ?? '').toContain('Signed out after 1 minutes without activity');
    await expect.poll(async () => (await api('GET', '/v1/users', token)).status).toBe(401);
  });

  it("is idled out by the server too: a token taken from the page, the page gone, is refused after the idle time; automation's is not", async () => {
    const page = await newPage();
    const issued = page.waitForResponse((r) => r.url().endsWith('/v1/users/authorize') && r.status() === 200);
    await signIn(page, ADMIN, ADMIN_PASSWORD);
    const taken = (await (await issued).json()).access_token as string;
    await signedInAs(page, ADMIN);
    await page.context().close(); // nothing left to sign it out: only the server can
    const automation = await adminToken();
    expect((await api('GET', '/v1/users', taken)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 62_000)); // cm_session_timeout_minutes: 1, in real time
    const refused = await api('GET', '/v1/users', taken);
    expect([refused.status, refused.json.message]).toEqual([
      401,
      expect.stringContaining('cm_session_timeout_minutes'),
    ]);
    expect((await api('GET', '/v1/users', automation)).status).toBe(200);
  }, 90_000);

  it('shows throttling as throttling, with when to try again (a server limiting 3 attempts a minute)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tessera-console-throttle-'));
    const strict = await startServe(['--no-tls', '--auth-rate-limit', '3'], {
      ...FAST_ARGON2_ENV,
      TESSERA_DATA_DIR: dir,
      TESSERA_ADMIN_USERNAME: ADMIN,
      TESSERA_ADMIN_PASSWORD: ADMIN_PASSWORD,
    });
    try {
      const page = await newPage();
      for (let i = 0; i < 3; i++) {
        await page.goto(strict.url);
        await page.getByLabel('Username').fill(ADMIN);
        await page.getByLabel('Password', { exact: true }).fill(`wrong-${i}`);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await expect.poll(() => page.getByRole('alert').textContent()).toContain('Invalid username or password');
      }
      await page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/Too many attempts.*try again in \d+ s/s);
    } finally {
      await strict.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('edits only what the person changed: a cancelled edit leaves nothing behind, and a stale page undoes no role', async () => {
    const admin = await newPage();
    await signIn(admin, ADMIN, ADMIN_PASSWORD);
    await signedInAs(admin, ADMIN);
    await createUser(admin, 'quinn', 'db_viewer');
    const { uid } = (await api('GET', '/v1/users', await adminToken())).json.find(
      (u: { name: string }) => u.name === 'quinn',
    );
    const quinn = async () => (await api('GET', `/v1/users/${uid}`, await adminToken())).json;
    // Edit → choose admin → Cancel → Edit → change only the name → Save: quinn is no admin.
    await rowAction(admin, 'quinn', 'Edit');
    await chooseLevel(admin.getByRole('dialog'), 'admin');
    await admin.getByRole('button', { name: 'Cancel' }).click();
    await rowAction(admin, 'quinn', 'Edit');
    // The form opens with the current values.
    expect(await admin.getByRole('dialog').getByRole('checkbox', { name: 'DB Viewer (db_viewer)' }).isChecked()).toBe(
      true,
    );
    expect(await admin.getByRole('dialog').getByRole('checkbox', { name: 'Admin (admin)' }).isChecked()).toBe(false);
    const sent = admin.waitForRequest((r) => r.method() === 'PUT' && r.url().includes('/v1/users/'));
    await admin.getByLabel('Name of quinn').fill('quinn-renamed');
    await admin.getByRole('button', { name: 'Save' }).click();
    expect((await sent).postDataJSON()).toEqual({ name: 'quinn-renamed' });
    await expect.poll(quinn).toMatchObject({ name: 'quinn-renamed', role: 'db_viewer' });
    // A role changed through the API after the page loaded survives a name-only save from that page.
    await api('PUT', `/v1/users/${uid}`, await adminToken(), { role: 'cluster_member' });
    await rowAction(admin, 'quinn-renamed', 'Edit');
    await admin.getByLabel('Name of quinn-renamed').fill('quinn');
    await admin.getByRole('button', { name: 'Save' }).click();
    await expect.poll(quinn).toMatchObject({ name: 'quinn', role: 'cluster_member' });
  });

  it("lists, creates, gives and deletes roles; sets another user's password", async () => {
    const admin = await newPage();
    await signIn(admin, ADMIN, ADMIN_PASSWORD);
    await signedInAs(admin, ADMIN);
    await admin.getByRole('link', { name: 'Roles' }).click();
    await admin.getByRole('rowheader', { name: 'DB Viewer' }).waitFor();
    await admin.getByLabel('Role name').fill('Operators');
    await admin.getByLabel('Management level').selectOption('cluster_member');
    await admin.getByRole('button', { name: 'Create role' }).click();
    await admin.getByRole('rowheader', { name: 'Operators' }).waitFor();
    const password = await createUser(admin, 'rhea', 'none');
    await rowAction(admin, 'rhea', 'Edit');
    await admin.getByRole('group', { name: 'Roles of rhea' }).getByLabel('Operators (cluster_member)').check();
    await admin.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => admin.getByRole('row', { name: /rhea/ }).textContent()).toContain('Operators');
    expect((await api('POST', '/v1/users/authorize', undefined, { username: 'rhea', password })).status).toBe(200);
    // In use: refused in the server's words.
    await admin.getByRole('link', { name: 'Roles' }).click();
    await admin.getByRole('button', { name: 'Delete role Operators' }).click();
    await admin.getByRole('dialog').getByRole('button', { name: 'Delete role Operators' }).click();
    await expect.poll(() => admin.getByRole('alert').textContent()).toContain('given to 1 user');
    // A new password set by the admin: the old one stops working, the new one works.
    await admin.getByRole('link', { name: 'Users' }).click();
    await rowAction(admin, 'rhea', 'Set password');
    await admin.getByLabel('New password of rhea').fill('Rhea-set-by-admin-1');
    await admin.getByRole('button', { name: 'Set password', exact: true }).click();
    await expect.poll(() => admin.getByRole('status').last().textContent()).toContain('Set a new password for rhea');
    expect((await api('POST', '/v1/users/authorize', undefined, { username: 'rhea', password })).status).toBe(401);
    expect(
      (await api('POST', '/v1/users/authorize', undefined, { username: 'rhea', password: 'Rhea-set-by-admin-1' }))
        .status,
    ).toBe(200);
  });

  it.skipIf(!slapdAvailable())(
    "sets up LDAP on its page; a directory user then signs in with its groups' role",
    async () => {
      const directory = await startDirectory(person('lena', 'lena-directory-pw') + group('operators', ['lena']));
      try {
        const page = await newPage();
        await signIn(page, ADMIN, ADMIN_PASSWORD);
        await signedInAs(page, ADMIN);
        await page.getByRole('link', { name: 'LDAP' }).click();
        await page.getByLabel('Server URIs').fill(directory.url);
        await page.getByLabel('Bind DN').fill(ROOT_DN);
        await page.getByLabel('Bind password').fill('not-the-root-password');
        await page.getByLabel('User DN template').fill(`uid=%u,ou=people,${BASE_DN}`);
        await page.getByLabel('Group attribute').fill('memberOf');
        await page.getByLabel('LDAP logins to the API and this console').check();
        await page.getByRole('button', { name: 'Save LDAP' }).click();
        // Settings that cannot bind are refused with the directory's reason.
        await expect.poll(() => page.getByRole('alert').textContent()).toContain('invalid credentials');
        await page.getByLabel('Bind password').fill(ROOT_PASSWORD);
        await page.getByRole('button', { name: 'Save LDAP' }).click();
        await expect.poll(() => page.getByRole('status').textContent()).toContain('Saved');
        await page.getByLabel('Mapping name').fill('Operators');
        await page.getByLabel('Group DN').fill(groupDn('operators'));
        await page
          .getByRole('group', { name: 'Roles its members get' })
          .getByLabel('Cluster Member (cluster_member)')
          .check();
        await page.getByRole('button', { name: 'Create mapping' }).click();
        await page.getByRole('rowheader', { name: 'Operators' }).waitFor();
        expect(await page.getByRole('row', { name: /Operators/ }).textContent()).toContain('Cluster Member');
        expect(await accessibilityViolations(page)).toEqual([]);
        // The page shows the password masked, never itself.
        await page.reload();
        await signIn(page, ADMIN, ADMIN_PASSWORD);
        await page.getByRole('link', { name: 'LDAP' }).click();
        await expect.poll(() => page.getByLabel('Bind password').inputValue()).toBe('***');

        const lena = await newPage();
        await signIn(lena, 'lena', 'lena-directory-pw');
        await signedInAs(lena, 'lena');
        expect(await lena.locator('header').textContent()).toContain('(cluster_member)');
        // Its password is the directory's: My password says so, with no form.
        await lena.getByRole('link', { name: 'My password' }).click();
        await lena.getByText('You sign in through the LDAP directory: your password is kept there.').waitFor();
        expect(await lena.getByLabel('Current password').count()).toBe(0);
        await api('DELETE', '/v1/cluster/ldap', await adminToken());
      } finally {
        await directory.stop();
      }
    },
  );

  it('creates a user that signs in with a client certificate, shown as such, with no password to set', async () => {
    const page = await newPage();
    await signIn(page, ADMIN, ADMIN_PASSWORD);
    await signedInAs(page, ADMIN);
    await page.getByRole('link', { name: 'Users' }).click();
    await page
      .getByRole('group', { name: 'Signs in with' })
      .getByRole('radio', { name: 'a client certificate (no password)' })
      .check();
    await page.getByLabel('Certificate subject').fill('CN=console-bot,OU=automation,O=Example');
    await chooseLevel(page.getByRole('form', { name: 'Create user' }), 'db_viewer');
    await page.getByRole('button', { name: 'Create user' }).click();
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'console-bot' }).textContent())
      .toContain('signs in with its client certificate');
    const row = page.getByRole('row', { name: /console-bot/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('certificate CN=console-bot,OU=automation,O=Example');
    await page.getByRole('button', { name: 'Actions for console-bot' }).click();
    const menu = page.getByRole('menu', { name: 'Actions for console-bot' });
    expect(await menu.getByRole('menuitem').allTextContents()).toEqual(['Edit', 'Sessions', 'API keys', 'Delete']);
    await page.keyboard.press('Escape');
    await expect.poll(() => menu.count()).toBe(0);
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it("changes a role's management only after Save and a confirmation naming its holders; Cancel and Escape change nothing", async () => {
    const token = await adminToken();
    const role = (await api('POST', '/v1/roles', token, { name: 'Auditors', management: 'db_viewer' })).json;
    await api('POST', '/v1/users', token, { name: 'ulla', password: 'Ulla-password-1', role_uids: [role.uid] });
    const ulla = async () =>
      (await api('POST', '/v1/users/authorize', undefined, { username: 'ulla', password: 'Ulla-password-1' })).json
        .access_token as string;
    const ullaToken = await ulla();
    const management = async () => (await api('GET', `/v1/roles/${role.uid}`, await adminToken())).json.management;

    const admin = await newPage();
    const puts: string[] = [];
    admin.on('request', (r) => r.method() === 'PUT' && puts.push(r.url()));
    await signIn(admin, ADMIN, ADMIN_PASSWORD);
    await signedInAs(admin, ADMIN);
    await admin.getByRole('link', { name: 'Roles' }).click();
    const row = admin.getByRole('row', { name: /Auditors/ });
    await expect.poll(() => row.textContent()).toContain('1 user');
    // Choosing a level applies nothing; Save asks first, naming the holders and what happens to their tokens.
    await admin.getByRole('button', { name: 'Edit role Auditors' }).click();
    await admin.getByLabel('Management of Auditors').selectOption('cluster_viewer');
    expect(puts).toEqual([]);
    await admin.getByRole('button', { name: 'Save' }).click();
    const confirm = admin.getByRole('dialog', { name: 'Change what Auditors grants?' });
    await confirm.waitFor();
    expect(await confirm.textContent()).toMatch(
      /cluster_viewer instead of db_viewer.*The 1 user who holds it is signed out: their tokens end/s,
    );
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => confirm.count()).toBe(0);
    expect(await focused(admin)).toBe('Edit role Auditors');
    expect(puts).toEqual([]);
    expect(await management()).toBe('db_viewer');
    expect(await row.textContent()).toContain('db_viewer');
    // Escape, in the form or in the confirmation: nothing either.
    await admin.getByRole('button', { name: 'Edit role Auditors' }).click();
    await admin.getByLabel('Management of Auditors').selectOption('admin');
    await admin.keyboard.press('Escape');
    await admin.getByRole('button', { name: 'Edit role Auditors' }).click();
    expect(await admin.getByLabel('Management of Auditors').inputValue()).toBe('db_viewer'); // opens with the current value
    await admin.getByLabel('Management of Auditors').selectOption('cluster_viewer');
    await admin.getByRole('button', { name: 'Save' }).click();
    await confirm.waitFor();
    await admin.keyboard.press('Escape');
    await expect.poll(() => confirm.count()).toBe(0);
    expect(puts).toEqual([]);
    expect((await api('GET', '/v1/users/permissions', ullaToken)).status).toBe(200);
    // Confirmed: changed, and the holder's token ends.
    await admin.getByRole('button', { name: 'Edit role Auditors' }).click();
    await admin.getByLabel('Management of Auditors').selectOption('cluster_viewer');
    await admin.getByRole('button', { name: 'Save' }).click();
    await confirm.getByRole('button', { name: 'Change management' }).click();
    await expect
      .poll(() => admin.getByRole('status').last().textContent())
      .toContain('Auditors now grants cluster_viewer');
    expect(await management()).toBe('cluster_viewer');
    expect((await api('GET', '/v1/users/permissions', ullaToken)).status).toBe(401);
    expect(puts).toHaveLength(1);
    expect(await accessibilityViolations(admin)).toEqual([]);
  });

  it('keeps the built-in roles: marked, with no Delete, and the server refuses to delete one; other roles are deleted once confirmed', async () => {
    const role = (await api('POST', '/v1/roles', await adminToken(), { name: 'Temporary', management: 'none' })).json;
    const refused = await api('DELETE', '/v1/roles/6', await adminToken());
    expect([refused.status, refused.json.error_code]).toEqual([406, 'delete_builtin_role_not_allowed']);
    expect(refused.json.message).toContain('"None" is a built-in role');

    const admin = await newPage();
    await signIn(admin, ADMIN, ADMIN_PASSWORD);
    await signedInAs(admin, ADMIN);
    await admin.getByRole('link', { name: 'Roles' }).click();
    await admin.getByRole('rowheader', { name: /Temporary/ }).waitFor();
    const builtIn = [
      'Admin',
      'Cluster Member',
      'Cluster Viewer',
      'DB Member',
      'DB Viewer',
      'None',
      'User Manager',
      'Token Verifier',
    ];
    for (const name of builtIn) {
      expect(await admin.getByRole('rowheader', { name: `${name} built-in`, exact: true }).count(), name).toBe(1);
      expect(await admin.getByRole('button', { name: `Delete role ${name}`, exact: true }).count(), name).toBe(0);
      expect(await admin.getByRole('button', { name: `Edit role ${name}`, exact: true }).count(), name).toBe(0);
    }
    expect(await admin.getByRole('rowheader', { name: 'Temporary', exact: true }).count()).toBe(1); // no mark
    await admin.getByRole('button', { name: 'Delete role Temporary' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Delete the role Temporary?' });
    expect(await dialog.textContent()).toContain('deleted for good');
    await admin.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    expect((await api('GET', `/v1/roles/${role.uid}`, await adminToken())).status).toBe(200);
    await admin.getByRole('button', { name: 'Delete role Temporary' }).click();
    await dialog.getByRole('button', { name: 'Delete role Temporary' }).click();
    await expect.poll(async () => (await api('GET', `/v1/roles/${role.uid}`, await adminToken())).status).toBe(404);
    await expect.poll(() => admin.getByRole('rowheader', { name: 'Temporary' }).count()).toBe(0);
  });

  it("edits a user in a modal dialog (focus in, Escape, focus back to the row's menu); the row menu works from the keyboard", async () => {
    await api('POST', '/v1/users', await adminToken(), {
      name: 'tess',
      password: 'Tess-password-1',
      role: 'db_viewer',
    });
    const admin = await newPage();
    await signIn(admin, ADMIN, ADMIN_PASSWORD);
    await signedInAs(admin, ADMIN);
    await admin.getByRole('link', { name: 'Users' }).click();
    const button = admin.getByRole('button', { name: 'Actions for tess' });
    const menu = admin.getByRole('menu', { name: 'Actions for tess' });
    expect([await button.getAttribute('aria-haspopup'), await button.getAttribute('aria-expanded')]).toEqual([
      'menu',
      'false',
    ]);
    // The menu button pattern: Enter opens on the first item, the arrows move and wrap, Home/End, Escape goes back.
    await button.focus();
    await admin.keyboard.press('Enter');
    await menu.waitFor();
    expect(await button.getAttribute('aria-expanded')).toBe('true');
    expect(await menu.getByRole('menuitem').allTextContents()).toEqual([
      'Edit',
      'Set password',
      'Expire password',
      'Sessions',
      'API keys',
      'Delete',
    ]);
    expect(await focused(admin)).toBe('Edit');
    await admin.keyboard.press('ArrowDown');
    expect(await focused(admin)).toBe('Set password');
    await admin.keyboard.press('End');
    expect(await focused(admin)).toBe('Delete');
    await admin.keyboard.press('ArrowDown');
    expect(await focused(admin)).toBe('Edit');
    await admin.keyboard.press('ArrowUp');
    expect(await focused(admin)).toBe('Delete');
    await admin.keyboard.press('Home');
    expect(await focused(admin)).toBe('Edit');
    await admin.keyboard.press('Escape');
    await expect.poll(() => menu.count()).toBe(0);
    expect(await focused(admin)).toBe('Actions for tess');
    expect(await button.getAttribute('aria-expanded')).toBe('false');
    // ArrowUp opens on the last item; a click elsewhere closes.
    await admin.keyboard.press('ArrowUp');
    await expect.poll(() => focused(admin)).toBe('Delete');
    await admin.getByRole('heading', { name: 'Users', level: 1 }).click();
    await expect.poll(() => menu.count()).toBe(0);

    // Edit: a real modal <dialog>, focus in it, Escape closes, focus back on the row's Actions button.
    await button.focus();
    await admin.keyboard.press('ArrowDown');
    await expect.poll(() => focused(admin)).toBe('Edit');
    await admin.keyboard.press('Enter');
    const dialog = admin.getByRole('dialog', { name: 'Edit tess' });
    await dialog.waitFor();
    expect(await dialog.evaluate((d) => d.tagName === 'DIALOG' && d.matches(':modal'))).toBe(true);
    expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
    expect(await focused(admin)).toBe('Name of tess'); // the first field
    await admin.keyboard.type('-x');
    await admin.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await focused(admin)).toBe('Actions for tess');
    expect(await admin.getByRole('rowheader', { name: 'tess', exact: true }).count()).toBe(1); // nothing saved
    // Save: the dialog closes, the row shows the change, focus is back on its button.
    await rowAction(admin, 'tess', 'Edit');
    await chooseLevel(dialog, 'cluster_viewer');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    await expect.poll(() => admin.getByRole('row', { name: /tess/ }).textContent()).toContain('cluster_viewer');
    expect(await focused(admin)).toBe('Actions for tess');
    // The row is one line of buttons' height, not a stack of them.
    const height = (await admin.getByRole('row', { name: /tess/ }).boundingBox())!.height;
    expect(height).toBeLessThan(60);
  });

  it("shows a new user's one-time password in a dialog with the focus on it, and a generated reset the same way", async () => {
    const admin = await newPage();
    await admin.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await signIn(admin, ADMIN, ADMIN_PASSWORD);
    await signedInAs(admin, ADMIN);
    await admin.getByRole('link', { name: 'Users' }).click();
    await admin.getByLabel("New user's name").fill('vera');
    await admin.getByRole('button', { name: 'Create user' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Created vera' });
    await dialog.waitFor();
    await expect.poll(() => focused(admin)).toBe('Generated password');
    const output = dialog.getByLabel('Generated password');
    const password = (await output.textContent())!.trim();
    const box = (await output.boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(admin.viewportSize()!.height); // where the eye is, not below the fold
    await dialog.getByRole('button', { name: 'Copy password' }).click();
    await dialog.getByText('Copied.').waitFor();
    await checkPage(admin, 'users-one-time-password');
    expect(await admin.evaluate(() => navigator.clipboard.readText())).toBe(password);
    expect((await api('POST', '/v1/users/authorize', undefined, { username: 'vera', password })).status).toBe(200);
    await dialog.getByRole('button', { name: 'Close' }).click();
    expect(await focused(admin)).toBe('Create user');

    await rowAction(admin, 'vera', 'Set password');
    await admin.getByRole('button', { name: 'Generate a password' }).click();
    await admin.getByRole('button', { name: 'Set password', exact: true }).click();
    const shown = admin.getByRole('dialog', { name: 'New password of vera' });
    await shown.waitFor();
    await expect.poll(() => focused(admin)).toBe('Generated password');
    const reset = (await shown.getByLabel('Generated password').textContent())!.trim();
    expect(reset).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(reset).not.toBe(password);
    expect((await api('POST', '/v1/users/authorize', undefined, { username: 'vera', password: reset })).status).toBe(
      200,
    );
    await shown.getByRole('button', { name: 'Close' }).click();
    expect(await focused(admin)).toBe('Actions for vera');
    await expect.poll(() => admin.getByRole('status').last().textContent()).toContain('Set a new password for vera');
  });

  it('marks locked and expired accounts in the list, in words', async () => {
    const token = await adminToken();
    await api('POST', '/v1/users', token, { name: 'lars', password: 'Lars-password-1', role: 'db_viewer' });
    const eve = (await api('POST', '/v1/users', token, { name: 'eve', password: 'Eve-password-1', role: 'db_viewer' }))
      .json;
    const threshold = (await api('GET', '/v1/cluster/policy', token)).json.login_lockout_threshold as number;
    for (let i = 0; i < threshold; i++)
      await api('POST', '/v1/users/authorize', undefined, { username: 'lars', password: `wrong-${i}` });
    expect((await api('POST', `/v1/users/${eve.uid}/expire-password`, token)).status).toBe(200);
    const users = (await api('GET', '/v1/users', token)).json as { name: string; status: string }[];
    expect(users.filter((u) => ['lars', 'eve'].includes(u.name)).map((u) => [u.name, u.status])).toEqual([
      ['lars', 'locked'],
      ['eve', 'password_expired'],
    ]);

    const admin = await newPage();
    await signIn(admin, ADMIN, ADMIN_PASSWORD);
    await signedInAs(admin, ADMIN);
    await admin.getByRole('link', { name: 'Users' }).click();
    const badge = (name: string) => admin.getByRole('row', { name: new RegExp(`^${name} `) }).locator('.badge');
    await expect.poll(() => badge('lars').textContent()).toBe('Locked');
    expect(await badge('eve').textContent()).toBe('Password expired');
    expect(await badge('tess').count()).toBe(0); // an active user has none
    expect(await badge('lars').isVisible()).toBe(true);
    await admin.getByRole('button', { name: 'Actions for lars' }).click();
    expect(await admin.getByRole('menuitem', { name: 'Unlock' }).count()).toBe(1);
    await admin.keyboard.press('Escape');
    expect(await accessibilityViolations(admin)).toEqual([]);
  });

  it('sets the trusted client CA (pasted or from a file) and turns certificate login on, each once confirmed; read back through the API', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tessera-console-ca-'));
    try {
      const ca = makeCa(dir, 'console-test-ca');
      const other = makeCa(dir, 'console-other-ca');
      const admin = await newPage();
      await signIn(admin, ADMIN, ADMIN_PASSWORD);
      await signedInAs(admin, ADMIN);
      await admin.getByRole('link', { name: 'Certificates' }).click();
      await admin.getByText('No CA is trusted').waitFor();
      // Pasted, then Cancel: nothing set.
      await admin.getByLabel('CA certificate (PEM)').fill(ca.pem);
      await admin.getByRole('button', { name: 'Save CA' }).click();
      const trust = admin.getByRole('dialog', { name: 'Trust this CA?' });
      expect(await trust.textContent()).toMatch(
        /\d+ users? who signs? in with a client certificate (is|are) signed out now|No user signs in with a client certificate now/,
      );
      await trust.getByRole('button', { name: 'Cancel' }).click();
      expect((await api('GET', '/v1/cluster/certificates', await adminToken())).json.mtls_trusted_ca_cert).toBe(
        undefined,
      );
      await admin.getByRole('button', { name: 'Save CA' }).click();
      await trust.getByRole('button', { name: 'Trust CA' }).click();
      await admin.getByRole('definition').filter({ hasText: 'CN=console-test-ca' }).first().waitFor();
      await checkPage(admin, 'certificates-ca-set');
      const certs = (await api('GET', '/v1/cluster/certificates', await adminToken())).json;
      expect(certs.mtls_trusted_ca_cert.trim()).toBe(ca.pem.trim());
      expect(await admin.getByRole('definition').allTextContents()).toContain('itself (a root)');
      // From a file: replaces it.
      await admin.getByLabel('Or a PEM file').setInputFiles(other.certFile);
      await expect.poll(() => admin.getByLabel('CA certificate (PEM)').inputValue()).toBe(other.pem);
      await admin.getByRole('button', { name: 'Save CA' }).click();
      await admin
        .getByRole('dialog', { name: 'Replace the trusted CA?' })
        .getByRole('button', { name: 'Replace CA' })
        .click();
      await admin.getByRole('definition').filter({ hasText: 'CN=console-other-ca' }).first().waitFor();
      expect((await api('GET', '/v1/cluster/certificates', await adminToken())).json.mtls_trusted_ca_cert.trim()).toBe(
        other.pem.trim(),
      );

      // Certificate login on, only CN=ops-bot let in: Cancel first, then confirmed.
      const login = admin.getByLabel('Certificate login: client certificates sign their users in');
      await login.check();
      await admin.getByLabel('Certificates let in').selectOption('san_cn');
      await admin.getByLabel('Authorized subjects').fill('CN=ops-bot,OU=automation,OU=ci,O=Example\\, Inc.');
      await admin.getByRole('button', { name: 'Save certificate login' }).click();
      const change = admin.getByRole('dialog', { name: 'Change certificate login?' });
      await change.getByRole('button', { name: 'Cancel' }).click();
      expect((await api('GET', '/v1/cluster', await adminToken())).json.mtls_certificate_authentication).toBe(false);
      await admin.getByRole('button', { name: 'Save certificate login' }).click();
      await change.getByRole('button', { name: 'Save and sign them out' }).click();
      await expect.poll(() => admin.getByRole('status').last().textContent()).toContain('Saved certificate login');
      expect((await api('GET', '/v1/cluster', await adminToken())).json).toMatchObject({
        mtls_certificate_authentication: true,
        mtls_client_cert_subject_validation_type: 'san_cn',
        mtls_authorized_subjects: [{ CN: 'ops-bot', OU: ['automation', 'ci'], O: 'Example, Inc.' }],
      });
      expect(await login.isChecked()).toBe(true);
      expect(await admin.getByLabel('Authorized subjects').inputValue()).toBe(
        'CN=ops-bot,OU=automation,OU=ci,O=Example\\, Inc.',
      );
      // Removing the CA is confirmed too.
      await admin.getByRole('button', { name: 'Remove CA' }).click();
      await admin
        .getByRole('dialog', { name: 'Remove the trusted CA?' })
        .getByRole('button', { name: 'Remove CA' })
        .click();
      await admin.getByText('No CA is trusted').waitFor();
      expect((await api('GET', '/v1/cluster/certificates', await adminToken())).json.mtls_trusted_ca_cert).toBe(
        undefined,
      );
      expect(await accessibilityViolations(admin)).toEqual([]);
    } finally {
      await api('PUT', '/v1/cluster', await adminToken(), {
        mtls_certificate_authentication: false,
        mtls_client_cert_subject_validation_type: 'disabled',
        mtls_authorized_subjects: [],
      });
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('every page, and the dialogs, is axe-clean with no horizontal scroll at 1280 and 800 px (screenshots in the temp dir)', async () => {
    const page = await newPage();
    const check = (name: string) => checkPage(page, name);
    await page.goto(server.url);
    await page.getByLabel('Username').waitFor();
    await check('sign-in');
    await signIn(page, ADMIN, ADMIN_PASSWORD);
    await signedInAs(page, ADMIN);
    await check('home');
    for (const name of ADMIN_PAGES) {
      await page.getByRole('link', { name }).click();
      await page
        .getByRole('heading', { level: 1, name: name === 'My password' ? 'Change your password' : name })
        .waitFor();
      await check(name.toLowerCase().replace(' ', '-'));
    }
    // The brand leads back home.
    await page.getByRole('link', { name: 'Tessera', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: `Welcome, ${ADMIN}` }).waitFor();
    await page.getByRole('link', { name: 'Users' }).click();
    await rowAction(page, ADMIN, 'Edit');
    await page.getByRole('dialog').waitFor();
    await check('users-edit-dialog');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: `Actions for ${ADMIN}` }).click();
    await check('users-action-menu');
    await page.keyboard.press('Escape');
    const shot = (await api('POST', '/v1/roles', await adminToken(), { name: 'Shot', management: 'db_member' })).json;
    await page.getByRole('link', { name: 'Roles' }).click();
    await page.getByRole('button', { name: 'Edit role Shot' }).click();
    await page.getByLabel('Management of Shot').selectOption('db_viewer');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('dialog', { name: 'Change what Shot grants?' }).waitFor();
    await check('roles-confirm');
    await page.keyboard.press('Escape');
    expect((await api('GET', `/v1/roles/${shot.uid}`, await adminToken())).json.management).toBe('db_member');
    await api('DELETE', `/v1/roles/${shot.uid}`, await adminToken());
    // Every page at two widths with axe: ~20 s alone, more on a busy machine (a CI run's first minutes).
  }, 180_000);

  it('shows the users list in one screen width: no sideways scroll, one line of actions a row (README screenshot: UPDATE_SCREENSHOT=1)', async () => {
    const page = await newPage();
    await signIn(page, ADMIN, ADMIN_PASSWORD);
    await signedInAs(page, ADMIN);
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('rowheader', { name: ADMIN, exact: true }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth <= window.innerWidth)).toBe(true);
    const table = (await page.getByRole('table', { name: 'Users' }).boundingBox())!;
    expect(table.x + table.width).toBeLessThanOrEqual(page.viewportSize()!.width);
    const header = (await page.locator('header').boundingBox())!;
    expect(header.height).toBeLessThan(80); // one line (64 px): nothing pushed it to wrap
    // A row is a line or two of text, never a stack of buttons (~150 px before the Actions menu).
    for (const row of await page.getByRole('row').all()) expect((await row.boundingBox())!.height).toBeLessThan(80);
    if (process.env.UPDATE_SCREENSHOT)
      await page.screenshot({ path: path.resolve(import.meta.dirname, '../../docs/console-users.png') });
  });
});
