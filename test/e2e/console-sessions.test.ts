import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, browserAvailable, launchBrowser } from '../helpers/browser.js';
import { basic, FAST_ARGON2_ENV, request, type ServeProcess, startServe } from '../helpers/cli.js';

const ADMIN = 'root';
const ADMIN_PASSWORD = 'Root-password-1';
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';
const CLI_AGENT = 'tessera-cli/1.4.0 (linux; node 20)';

/** The console's Sessions page (every user's live sessions) and its home page's counts, in a real browser. */
describe.skipIf(!browserAvailable())('console: sessions and the home page (Chromium)', () => {
  let dataDir: string;
  let server: ServeProcess;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const uids: Record<string, number> = {};
  const ROOT_BASIC = basic(ADMIN, ADMIN_PASSWORD);

  /** A call of the API: with Basic credentials (no session), a token, or nothing; a User-Agent of its own. */
  const api = async (method: string, url: string, opts: { auth?: string; body?: unknown; agent?: string } = {}) =>
    request(`${server.url}${url}`, {
      method,
      headers: { ...(opts.auth && { authorization: opts.auth }), ...(opts.agent && { 'user-agent': opts.agent }) },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
  /** A login of the API: a session, with the client's User-Agent. */
  const loginAs = async (username: string, password: string, agent: string) => {
    const res = await api('POST', '/v1/users/authorize', { body: { username, password }, agent });
    expect(res.status).toBe(200);
    return `Bearer ${res.json.access_token}`;
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-console-sessions-'));
    server = await startServe(['--no-tls', '--auth-rate-limit', '0'], {
      ...FAST_ARGON2_ENV,
      TESSERA_DATA_DIR: dataDir,
      TESSERA_ADMIN_USERNAME: ADMIN,
      TESSERA_ADMIN_PASSWORD: ADMIN_PASSWORD,
    });
    for (const [name, role] of [
      ['ann', 'user_manager'],
      ['bob', 'db_viewer'],
      ['cleo', 'db_viewer'],
    ] as const) {
      const res = await api('POST', '/v1/users', {
        auth: ROOT_BASIC,
        body: { name, email: `${name}@example.com`, password: `${name}-Password-42`, role },
      });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      uids[name] = res.json.uid;
    }
    browser = await launchBrowser();
  });

  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    context.setDefaultTimeout(10_000);
    contexts.push(context);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(String(e)));
    (page as Page & { problems: string[] }).problems = problems;
    return page;
  }

  async function signIn(page: Page, username: string, password: string) {
    await page.goto(server.url);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('header .who').textContent()).toContain(username);
  }

  /** The home page's card that counts `what`: its whole text. */
  const card = (page: Page, what: RegExp) =>
    page.getByRole('list', { name: 'The cluster now' }).getByRole('listitem').filter({ hasText: what }).textContent();

  /** At 1280 and 800 px: no serious accessibility violation, nothing wider than the window. */
  async function checkPage(page: Page, name: string) {
    for (const width of [1280, 800]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForLoadState('networkidle');
      expect(await accessibilityViolations(page), `${name} at ${width}`).toEqual([]);
      const [scrollWidth, innerWidth] = await page.evaluate(() => [
        document.scrollingElement!.scrollWidth,
        window.innerWidth,
      ]);
      expect(scrollWidth, `${name} at ${width}: scrollWidth`).toBeLessThanOrEqual(innerWidth);
    }
    await page.setViewportSize({ width: 1200, height: 800 });
  }

  it("counts the cluster's state on the home page, lists every user's sessions and ends one: its token is refused, the others live", async () => {
    const ann = await loginAs('ann', 'ann-Password-42', CLI_AGENT);
    const bob = await loginAs('bob', 'bob-Password-42', FIREFOX);
    // cleo's account locked by five wrong passwords (the default lockout threshold): five refused sign-ins.
    for (let i = 0; i < 5; i++)
      expect(
        (await api('POST', '/v1/users/authorize', { body: { username: 'cleo', password: `wrong-${i}` } })).status,
      ).toBe(401);
    expect((await api('GET', `/v1/users/${uids.cleo}`, { auth: ROOT_BASIC })).json.status).toBe('locked');

    const admin = await newPage();
    await signIn(admin, ADMIN, ADMIN_PASSWORD);
    // root, ann, bob, cleo; cleo locked; the sessions of ann, bob and this console; cleo's five refusals.
    await expect.poll(() => card(admin, /^\d+\s*users?$/)).toMatch(/^4\s*users/);
    await expect.poll(() => card(admin, /locked/)).toMatch(/^1\s*locked account\b/);
    await expect.poll(() => card(admin, /live session/)).toMatch(/^3\s*live sessions/);
    await expect.poll(() => card(admin, /failed sign-in/)).toMatch(/^5\s*failed sign-ins in the last 24 h/);
    await checkPage(admin, 'home');

    await admin.getByRole('link', { name: 'who is signed in' }).click();
    await admin.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor();
    const rows = admin.getByRole('table', { name: 'Live sessions' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(3);
    const bobRow = rows.filter({ hasText: 'bob@example.com' });
    const annRow = rows.filter({ hasText: 'ann@example.com' });
    const ownRow = rows.filter({ hasText: 'you, here' });
    // Who (name, email beneath), from where, with what (shortened; the whole User-Agent in the title).
    expect(await bobRow.getByRole('rowheader').textContent()).toMatch(/^bob\s*bob@example\.com/);
    expect(await bobRow.textContent()).toContain('127.0.0.1');
    expect(await bobRow.getByText('Firefox 133 on Windows').getAttribute('title')).toBe(FIREFOX);
    expect(await annRow.getByText('tessera-cli/1.4.0', { exact: true }).getAttribute('title')).toBe(CLI_AGENT);
    expect(await ownRow.textContent()).toMatch(/Chrome \d+ on Linux/);
    expect(await ownRow.textContent()).toContain('console');
    // Signed in and last seen: a time each, in the console's one format.
    for (const row of [bobRow, annRow, ownRow]) {
      const cells = await row.getByRole('cell').allTextContents();
      expect(cells[2], 'signed in').toMatch(/\d/);
      expect(cells[3], 'last seen').toMatch(/\d/);
    }
    await checkPage(admin, 'sessions');

    // End bob's, once confirmed: Cancel first changes nothing.
    await bobRow.getByRole('button', { name: /^End the session of bob/ }).click();
    const confirm = admin.getByRole('dialog', { name: 'End this session of bob?' });
    expect(await confirm.textContent()).toContain('Firefox 133 on Windows');
    expect(await accessibilityViolations(admin)).toEqual([]);
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect((await api('GET', '/v1/users/permissions', { auth: bob })).status).toBe(200);
    await bobRow.getByRole('button', { name: /^End the session of bob/ }).click();
    await confirm.getByRole('button', { name: 'End session' }).click();
    await expect.poll(() => admin.getByRole('status').last().textContent()).toContain('Ended the session of bob');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.filter({ hasText: 'bob@example.com' }).count()).toBe(0);
    expect((await api('GET', '/v1/users/permissions', { auth: bob })).status).toBe(401);
    expect((await api('GET', '/v1/users/permissions', { auth: ann })).status).toBe(200);

    // Home again: bob's session is no longer counted.
    await admin.evaluate(() => {
      location.hash = '#/';
    });
    await expect.poll(() => card(admin, /live session/)).toMatch(/^2\s*live sessions/);
    expect((admin as Page & { problems: string[] }).problems).toEqual([]);
  });

  it('shows a user_manager every session without "End every session", and someone who may not list users neither page nor counts', async () => {
    const ann = await newPage();
    await signIn(ann, 'ann', 'ann-Password-42');
    await expect.poll(() => card(ann, /live session/)).toMatch(/^\d+\s*live sessions/);
    await ann.getByRole('link', { name: 'Sessions' }).click();
    const rows = ann.getByRole('table', { name: 'Live sessions' }).locator('tbody tr');
    await expect.poll(() => rows.filter({ hasText: 'you, here' }).textContent()).toContain('ann@example.com');
    expect(await rows.filter({ hasText: 'root' }).count()).toBeGreaterThan(0);
    expect(await ann.getByRole('button', { name: 'End every session' }).count()).toBe(0);

    const bob = await newPage();
    await signIn(bob, 'bob', 'bob-Password-42');
    expect(await bob.getByRole('link', { name: 'Sessions' }).count()).toBe(0);
    expect(await bob.getByRole('list', { name: 'The cluster now' }).count()).toBe(0);
    expect(await bob.getByRole('main').textContent()).toContain('My password changes your password');
    // The API says the same.
    const bobToken = await loginAs('bob', 'bob-Password-42', 'curl/8.5.0');
    expect((await api('GET', '/v1/sessions', { auth: bobToken })).status).toBe(403);
  });

  it("ends every session after a confirmation saying the operator's own ends too: everyone signs in again", async () => {
    const ann = await loginAs('ann', 'ann-Password-42', CLI_AGENT);
    const admin = await newPage();
    await signIn(admin, ADMIN, ADMIN_PASSWORD);
    await admin.getByRole('link', { name: 'Sessions' }).click();
    await admin.getByRole('button', { name: 'End every session' }).click();
    const confirm = admin.getByRole('dialog', { name: 'End every session?' });
    expect(await confirm.textContent()).toMatch(/Your own session ends too.*sign in again/s);
    await confirm.getByRole('button', { name: 'End every session' }).click();
    await admin.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await admin.getByRole('status').textContent()).toMatch(/Ended every session \(\d+\), yours too/);
    expect((await api('GET', '/v1/users/permissions', { auth: ann })).status).toBe(401);

    // Signed in again: the one live session is this console's.
    await signIn(admin, ADMIN, ADMIN_PASSWORD);
    await expect.poll(() => card(admin, /live session/)).toMatch(/^1\s*live session\b/);
    await admin.getByRole('link', { name: 'Sessions' }).click();
    const rows = admin.getByRole('table', { name: 'Live sessions' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.textContent()).toContain('you, here');
  });
});
