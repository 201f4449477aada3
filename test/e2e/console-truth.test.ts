import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as OTPAuth from 'otpauth';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/event-log/event-type-list.js';
import { accessibilityViolations, browserAvailable, launchBrowser } from '../helpers/browser.js';
import { basic, FAST_ARGON2_ENV, request, type ServeProcess, startServe } from '../helpers/cli.js';

const ADMIN = 'root';
const ADMIN_PASSWORD = 'Root-password-1';

/**
 * Every time the console shows: day, month named, year, the time to the second, and the zone
 * named (the browser's: these pages run in Paris, in German, which the format follows in its
 * zone only): 27 Nov 2026, 18:40:12 GMT+1.
 */
const ZONE = String.raw`(?:UTC|GMT[+-]\d{1,2}(?::\d\d)?|[A-Z]{2,5})`;
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = String.raw`\d{1,2} ${MONTH} \d{4}, \d\d:\d\d:\d\d ${ZONE}`;
const WHEN = new RegExp(`^${TIME}$`);
const WHEN_IN_TEXT = new RegExp(String.raw`${TIME}(?![\w+:-])`, 'g');

/** What the console shows of what is true: one date format with its zone, the filters the API has, the settings it keeps. */
describe.skipIf(!browserAvailable())('the console tells the truth, readably (Chromium)', () => {
  let dataDir: string;
  let server: ServeProcess;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-console-truth-'));
    server = await startServe(['--no-tls', '--auth-rate-limit', '0'], {
      ...FAST_ARGON2_ENV,
      TESSERA_DATA_DIR: dataDir,
      TESSERA_ADMIN_USERNAME: ADMIN,
      TESSERA_ADMIN_PASSWORD: ADMIN_PASSWORD,
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const api = async (method: string, url: string, body?: unknown, auth = basic(ADMIN, ADMIN_PASSWORD)) =>
    request(`${server.url}${url}`, {
      method,
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const tokenOf = async (username: string, password: string) =>
    (
      await request(`${server.url}/v1/users/authorize`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username, password }),
      })
    ).json.access_token as string;

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({
      viewport: { width: 1200, height: 800 },
      timezoneId: 'Europe/Paris',
      locale: 'de-DE',
    });
    context.setDefaultTimeout(10_000);
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (e) => {
      throw e;
    });
    return page;
  }

  async function signIn(page: Page, username: string, password: string) {
    await page.goto(server.url);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('header .who').textContent()).toContain(username);
  }

  async function open(page: Page, link: string) {
    await page.getByRole('link', { name: link, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: link }).waitFor();
    await page.waitForLoadState('networkidle');
  }

  /**
   * The times shown in `where`, each in the one format with its zone; none otherwise (a clock
   * time, a date written another way); at least `least` of them.
   */
  async function timesIn(where: Locator, least: number): Promise<string[]> {
    // Text node by text node, a <time> as one: a time is written whole (`when`, When), whatever surrounds it.
    const text = await where.evaluate((e) => {
      const texts: string[] = [];
      const walker = document.createTreeWalker(e, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, (n) =>
        n.parentElement?.closest('time') && n.parentElement.closest('time') !== n
          ? NodeFilter.FILTER_REJECT
          : NodeFilter.FILTER_ACCEPT,
      );
      while (walker.nextNode()) {
        const n = walker.currentNode;
        if (n.nodeType === Node.TEXT_NODE || n.nodeName === 'TIME') texts.push(n.textContent ?? '');
      }
      return texts.join('\n');
    });
    const times = text.match(WHEN_IN_TEXT) ?? [];
    expect(times.length, text).toBeGreaterThanOrEqual(least);
    const rest = text.replace(WHEN_IN_TEXT, '');
    expect(rest, 'a time written otherwise').not.toMatch(/\d{1,2}:\d\d/);
    expect(rest, 'a date written otherwise').not.toMatch(/\b\d{1,2}[./]\d{1,2}[./]\d{2,4}\b|\d{4}-\d\d-\d\d/);
    return times;
  }

  /** The texts of a table's column, by its header. */
  async function column(table: Locator, header: string): Promise<string[]> {
    const headers = (await table.locator('thead th').allTextContents()).map((t) => t.trim());
    const at = headers.indexOf(header);
    expect(at, `${header} among ${headers.join(', ')}`).toBeGreaterThanOrEqual(0);
    return (await table.locator(`tbody tr > :nth-child(${at + 1})`).allTextContents()).map((t) => t.trim());
  }

  /** At 1280 and 800 px wide: no serious accessibility violation, nothing wider than the window; a screenshot under the temp dir (console-truth-shots/). */
  async function readable(page: Page, name: string) {
    const shots = path.join(tmpdir(), 'console-truth-shots');
    mkdirSync(shots, { recursive: true });
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
    }
    await page.setViewportSize({ width: 1200, height: 800 });
  }

  it('Roles: "Held by" counts every holder, the first admin included (role uid 1 right after the first start)', async () => {
    const users = (await api('GET', '/v1/users')).json as { name: string; role_uids: number[] }[];
    expect(users).toMatchObject([{ name: ADMIN, role_uids: [1] }]);
    const page = await newPage();
    await signIn(page, ADMIN, ADMIN_PASSWORD);
    await open(page, 'Roles');
    const admin = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /^Admin\b/ }) });
    await expect.poll(() => admin.getByRole('cell').allTextContents()).toContain('1 user');
    const heldBy = await column(page.locator('table'), 'Held by');
    expect(heldBy.filter((t) => t !== '0 users')).toEqual(['1 user']);
  });

  it('Users: a user made with only a custom role holds that role alone, and once it is taken off holds what an API-made user would', async () => {
    const auditors = (await api('POST', '/v1/roles', { name: 'Auditors', management: 'db_member' })).json;
    const page = await newPage();
    await signIn(page, ADMIN, ADMIN_PASSWORD);
    await open(page, 'Users');
    const form = page.getByRole('form', { name: 'Create user' });
    await form.getByLabel("New user's name").fill('cora');
    const roles = form.getByRole('group', { name: /^Roles/ });
    // Nothing is ticked before the person ticks it: no base level rides along.
    await roles.getByRole('checkbox').first().waitFor();
    expect(await roles.getByRole('checkbox', { checked: true }).count()).toBe(0);
    await roles.getByLabel('Auditors (db_member)').check();
    await form.getByRole('button', { name: 'Create user' }).click();
    await page.getByRole('dialog').getByLabel('Generated password').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
    const userNamed = async (name: string) =>
      ((await api('GET', '/v1/users')).json as { uid: number; name: string; role: string; role_uids: number[] }[]).find(
        (u) => u.name === name,
      )!;
    expect((await userNamed('cora')).role_uids).toEqual([auditors.uid]);
    // Taken off in the console, and the same through the API for another: they end alike.
    await page.getByRole('button', { name: 'Actions for cora', exact: true }).click();
    await page
      .getByRole('menu', { name: 'Actions for cora' })
      .getByRole('menuitem', { name: 'Edit', exact: true })
      .click();
    await page.getByRole('group', { name: 'Roles of cora' }).getByLabel('Auditors (db_member)').uncheck();
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(async () => (await userNamed('cora')).role_uids).not.toContain(auditors.uid);
    const dora = (
      await api('POST', '/v1/users', { name: 'dora', password: 'Dora-password-secret-1', role_uids: [auditors.uid] })
    ).json;
    expect((await api('PUT', `/v1/users/${dora.uid}`, { role_uids: [] })).status).toBe(200);
    const [cora, api_made] = [await userNamed('cora'), await userNamed('dora')];
    expect([cora.role, cora.role_uids]).toEqual([api_made.role, api_made.role_uids]);
  });

  it('Users, Sessions, API keys, Events and Security write every time one way, with its zone; emails wrap only at the @ or a dot', async () => {
    const long = 'firstname.lastname@subdomain.example-company.com';
    for (const [email, password] of [
      ['dora@example.com', 'Dora-password-secret-1'],
      [long, 'Long-password-secret-1'],
    ] as const)
      expect((await api('POST', '/v1/users', { email, password, role: 'db_viewer' })).status).toBe(200);
    await tokenOf('dora@example.com', 'Dora-password-secret-1'); // a last login and a session
    await tokenOf(long, 'Long-password-secret-1');
    const key = await api('POST', '/v1/users/1/api_keys', { name: 'truth key', ttl_days: 30 });
    expect(key.status).toBe(200);
    expect((await api('GET', '/v1/users/1', undefined, `Bearer ${key.json.key}`)).status).toBe(200); // last used

    const page = await newPage();
    await signIn(page, ADMIN, ADMIN_PASSWORD);
    await open(page, 'Users');
    const users = page.locator('main table').first();
    await users.getByRole('rowheader').or(users.getByRole('cell')).filter({ hasText: 'dora@' }).first().waitFor();
    const logins = (await column(users, 'Last login')).filter((t) => t !== 'never');
    expect(logins.length).toBeGreaterThanOrEqual(3); // root, dora, the long one
    for (const t of logins) expect(t).toMatch(WHEN);
    expect(logins.join()).toMatch(/GMT\+[12]\b/); // Paris, as the browser is
    await timesIn(page.locator('main'), 3);
    // The long email: at 800 px its parts (cut after the @, before each dot of its domain) each stay on one line.
    await page.setViewportSize({ width: 800, height: 900 });
    const cell = users.getByRole('cell', { name: long, exact: true });
    expect(await cell.textContent()).toBe(long);
    const parts = await cell
      .locator('span')
      .evaluateAll((spans) => spans.map((s) => [s.textContent, s.getClientRects().length] as const));
    expect(parts.map(([text]) => text).join('')).toBe(long);
    for (const [text, lines] of parts) expect(lines, `"${text}" broken inside`).toBe(1);
    // A short one is whole on one line; none sticks out of its cell (the column grows instead), at either width.
    for (const width of [800, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      const dora = users.getByRole('cell', { name: 'dora@example.com', exact: true }).locator('span');
      expect(await dora.evaluate((s) => s.getClientRects().length)).toBe(1);
      const outside = await users
        .locator('.name > span')
        .evaluateAll((spans) =>
          spans
            .filter((s) => s.getBoundingClientRect().right > s.parentElement!.getBoundingClientRect().right + 0.5)
            .map((s) => s.textContent),
        );
      expect(outside, `at ${width}`).toEqual([]);
    }
    await page.setViewportSize({ width: 1200, height: 800 });
    await readable(page, 'users');

    // dora's sessions, and the admin's own API keys: their dialogs.
    await page.getByRole('button', { name: 'Actions for dora@example.com', exact: true }).click();
    await page.getByRole('menuitem', { name: 'Sessions', exact: true }).click();
    const sessions = page.getByRole('dialog');
    await sessions.getByRole('table').waitFor();
    await timesIn(sessions, 3); // signed in, last refresh, ends
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'My API keys' }).click();
    const keys = page.getByRole('dialog');
    await keys.getByRole('row', { name: /truth key/ }).waitFor();
    await expect.poll(async () => (await timesIn(keys, 0)).length).toBe(3); // created, expires, last used
    await page.keyboard.press('Escape');

    await open(page, 'Events');
    expect(await page.locator('thead th').first().textContent()).toBe('Time');
    await page.locator('tbody tr').first().waitFor();
    const times = await column(page.locator('main table'), 'Time');
    expect(times.length).toBeGreaterThan(3);
    for (const t of times) expect(t).toMatch(WHEN);
    await timesIn(page.locator('main'), times.length);

    // Security: a second factor's dates (sam sets one up through the API while signed in here).
    const sam = await newPage();
    expect(
      (await api('POST', '/v1/users', { name: 'sam', password: 'Sam-password-secret-1', role: 'db_viewer' })).status,
    ).toBe(200);
    await signIn(sam, 'sam', 'Sam-password-secret-1');
    const samToken = `Bearer ${await tokenOf('sam', 'Sam-password-secret-1')}`;
    const samUid = (await api('GET', '/v1/users')).json.find((u: { name: string }) => u.name === 'sam').uid;
    const app = await api('POST', `/v1/users/${samUid}/mfa/totp`, {}, samToken);
    expect(app.status).toBe(200);
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(app.json.secret) });
    const verified = await api('POST', `/v1/users/${samUid}/mfa/totp/verify`, { code: totp.generate() }, samToken);
    expect(verified.status).toBe(200);
    await open(sam, 'Security');
    await sam.getByRole('table').waitFor();
    const added = await column(sam.locator('main table'), 'Added');
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(WHEN);
    await timesIn(sam.locator('main'), 1);
  });

  it('Events: the type is a list of the types the log has; filtering by it and by a user’s email lists that user', async () => {
    const email = 'evan.events@example.com';
    expect(
      (await api('POST', '/v1/users', { email, password: 'Evan-password-secret-1', role: 'db_viewer' })).status,
    ).toBe(200);
    await tokenOf(email, 'Evan-password-secret-1');
    const page = await newPage();
    await signIn(page, ADMIN, ADMIN_PASSWORD);
    await open(page, 'Events');
    const type = page.getByLabel('Type', { exact: true });
    expect(await type.evaluate((e) => e.tagName)).toBe('SELECT');
    const options = await type.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(options).toEqual(['', ...EVENT_TYPES]);
    expect(options).toContain('user_created');

    const rows = page.locator('main tbody tr');
    const shown = async () =>
      rows.evaluateAll((trs) =>
        trs.map((tr) => [...(tr as HTMLTableRowElement).cells].map((c) => c.textContent?.trim() ?? '')),
      );
    await type.selectOption('user_created');
    await page.getByRole('button', { name: 'Show events' }).click();
    await expect
      .poll(async () =>
        (await shown()).filter(([, what, about]) => what === 'user_created' && about?.startsWith(`${email} (`)),
      )
      .toHaveLength(1);
    expect((await shown()).every(([, what]) => what === 'user_created')).toBe(true);

    await type.selectOption('');
    await page.getByLabel('User name or email').fill(email.toUpperCase());
    await page.getByRole('button', { name: 'Show events' }).click();
    await expect
      .poll(async () => (await shown()).map(([, what]) => what).sort())
      .toEqual(['authorize', 'user_created']);
    expect((await shown()).every((cells) => cells.slice(2, 4).join(' ').includes(email))).toBe(true);
    await readable(page, 'events');

    await page.getByLabel('User name or email').fill('nobody-here');
    await page.getByRole('button', { name: 'Show events' }).click();
    await page.getByText('No events match.').waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
  });

  it("Policy: shows and saves the cluster's name and session_max_lifetime_minutes, as GET /v1/cluster answers them", async () => {
    const before = (await api('GET', '/v1/cluster')).json;
    const page = await newPage();
    await signIn(page, ADMIN, ADMIN_PASSWORD);
    await open(page, 'Policy');
    const name = page.getByLabel('Cluster name');
    const lifetime = page.getByLabel('Session lifetime (minutes)');
    await expect.poll(() => name.inputValue()).toBe(before.name);
    expect(await lifetime.inputValue()).toBe(String(before.session_max_lifetime_minutes));
    expect(await page.locator('small.hint').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringMatching(/pre-hashed/), expect.stringMatching(/^5 to 43200/)]),
    );
    await readable(page, 'policy');

    await name.fill('truth-cluster');
    await lifetime.fill('90');
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    expect((await api('GET', '/v1/cluster')).json).toMatchObject({
      name: 'truth-cluster',
      session_max_lifetime_minutes: 90,
    });
    await page.reload();
    await signIn(page, ADMIN, ADMIN_PASSWORD);
    await open(page, 'Policy');
    await expect.poll(() => page.getByLabel('Cluster name').inputValue()).toBe('truth-cluster');
    expect(await page.getByLabel('Session lifetime (minutes)').inputValue()).toBe('90');
    // Its bounds, as the API's (the browser holds the form to them; the server checks again).
    expect(
      await page
        .getByLabel('Session lifetime (minutes)')
        .evaluate((e) => [e.getAttribute('min'), e.getAttribute('max')]),
    ).toEqual(['5', '43200']);
  });

  it('SSO: shows the service provider certificate it holds: subject, issuer, validity, SHA-256 fingerprint', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tessera-truth-sp-'));
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'rsa:2048', '-sha256', '-nodes', '-days', '30', '-subj', '/CN=tessera-truth-sp'],
        ...['-keyout', 'privkey.pem', '-out', 'cert.pem'],
      ],
      { cwd: dir, stdio: 'pipe', input: '' },
    );
    const pem = readFileSync(path.join(dir, 'cert.pem'), 'utf8');
    const key = readFileSync(path.join(dir, 'privkey.pem'), 'utf8');
    rmSync(dir, { recursive: true, force: true });
    const set = await api('PUT', '/v1/cluster/certificates', {
      certificates: [{ name: 'sso_service', certificate: pem, key }],
    });
    expect(set.status, JSON.stringify(set.json)).toBe(200);
    const cert = new X509Certificate(pem);

    const page = await newPage();
    await signIn(page, ADMIN, ADMIN_PASSWORD);
    await open(page, 'SSO');
    const facts = page.locator('dl[aria-label="The service certificate set"]');
    await facts.waitFor();
    const shown = Object.fromEntries(
      await facts
        .locator('dt')
        .evaluateAll((dts) => dts.map((dt) => [dt.textContent, dt.nextElementSibling?.textContent] as const)),
    );
    expect(shown).toMatchObject({
      Subject: 'CN=tessera-truth-sp',
      Issuer: 'itself (self-signed)',
      'SHA-256': cert.fingerprint256,
    });
    const [from, until] = shown.Valid!.replace(/^from /, '').split(' until ');
    expect(from).toMatch(WHEN);
    expect(until).toMatch(WHEN);
    expect(Date.parse(cert.validTo) - Date.parse(cert.validFrom)).toBe(30 * 86_400_000);
    await readable(page, 'sso');
  });
});
