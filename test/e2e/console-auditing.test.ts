import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, browserAvailable, launchBrowser } from '../helpers/browser.js';
import { basic, FAST_ARGON2_ENV, request, type ServeProcess, startServe } from '../helpers/cli.js';
import { type Collector, startCollector } from '../helpers/rsyslog.js';

const ADMIN = 'root';
const ADMIN_PASSWORD = 'Root-password-1';
const AUDITING = '/v1/cluster/auditing/control_plane';

/** The console's Auditing page in a real browser (Debian's Chromium), the real server and a real rsyslog collector. */
describe.skipIf(!browserAvailable())('console: Auditing (SIEM sinks)', () => {
  let dir: string;
  let server: ServeProcess;
  let collector: Collector;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tessera-console-auditing-'));
    collector = await startCollector({ dir });
    server = await startServe(['--no-tls', '--auth-rate-limit', '0'], {
      ...FAST_ARGON2_ENV,
      TESSERA_DATA_DIR: path.join(dir, 'data'),
      TESSERA_ADMIN_USERNAME: ADMIN,
      TESSERA_ADMIN_PASSWORD: ADMIN_PASSWORD,
    });
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(10_000); // a failing step says which, before the test's own timeout
    page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Refused to/.test(m.text())) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(String(e)));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await collector?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const api = (method: string, url: string, body?: unknown) =>
    request(`${server.url}${url}`, {
      method,
      headers: { authorization: basic(ADMIN, ADMIN_PASSWORD) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const sinkNames = async () => ((await api('GET', AUDITING)).json.sinks as { name: string }[]).map((s) => s.name);
  const row = (name: string) =>
    page.getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) });
  /** One of a sink's actions, from the row's Actions menu. */
  async function rowAction(sink: string, action: string) {
    await page.getByRole('button', { name: `Actions for sink ${sink}`, exact: true }).click();
    await page
      .getByRole('menu', { name: `Actions for sink ${sink}` })
      .getByRole('menuitem', { name: action, exact: true })
      .click();
  }
  const newUser = async (name: string) =>
    expect(
      (
        await api('POST', '/v1/users', {
          name,
          email: `${name}@example.com`,
          password: 'User-password-1',
          role: 'db_viewer',
        })
      ).status,
    ).toBe(200);

  /** At 1280 and 800 px wide: no serious accessibility violation, nothing wider than the window; a screenshot under the temp dir (console-shots/) to look at. */
  async function checkPage(name: string) {
    const shots = path.join(tmpdir(), 'console-shots');
    mkdirSync(shots, { recursive: true });
    const before = page.viewportSize();
    for (const width of [1280, 800]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForLoadState('networkidle');
      await page.screenshot({ path: path.join(shots, `${name}-${width}.png`), fullPage: true });
      expect(await accessibilityViolations(page), `${name} at ${width}`).toEqual([]);
      const [scrollWidth, innerWidth] = await page.evaluate(() => [
        document.scrollingElement!.scrollWidth,
        window.innerWidth,
      ]);
      expect(scrollWidth, `${name} at ${width}: scrollWidth`).toBeLessThanOrEqual(innerWidth);
    }
    if (before) await page.setViewportSize(before);
  }

  it("adds a syslog sink that delivers to rsyslog, shows it failing once the collector is down, refuses an http webhook in the API's words, removes the sink (screenshot: UPDATE_SCREENSHOT=1)", async () => {
    await page.goto(server.url);
    await page.getByLabel('Username').fill(ADMIN);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Auditing' }).click();
    await page.getByRole('heading', { level: 1, name: 'Auditing' }).waitFor();
    // One more link: the header still one line at 1280 px (under 1100 the links have a row of their own).
    const tops = await page
      .locator('header nav a')
      .evaluateAll((links) => links.map((a) => a.getBoundingClientRect().top));
    expect(new Set(tops).size).toBe(1);
    await page.getByText('No sinks').waitFor();

    // A syslog sink over TCP, in json: listed, delivering.
    const add = page.getByRole('form', { name: 'Add a sink' });
    await add.getByLabel('Sink name').fill('collector');
    await add.getByLabel('Type').selectOption('syslog');
    await add.getByLabel('Format').selectOption('json');
    await add.getByLabel('Collector address').fill('127.0.0.1');
    await add.getByLabel('Port').fill(String(collector.port));
    await add.getByLabel('Protocol').selectOption('TCP');
    expect(await add.getByLabel('CA certificate (PEM)').count()).toBe(0); // TLS only
    await add.getByRole('button', { name: 'Add sink' }).click();
    await add.getByRole('status').filter({ hasText: 'Added the sink collector.' }).waitFor();
    await expect.poll(() => row('collector').textContent()).toContain(`127.0.0.1:${collector.port} TCP`);
    expect(await row('collector').textContent()).toContain('Delivering');
    expect(await add.getByLabel('Sink name').inputValue()).toBe(''); // the form is ready for another

    // A change's event reaches the collector, and the page counts it (refreshed every 5 s).
    await newUser('alice');
    const received = await collector.waitFor(1, 15_000);
    await expect.poll(() => collector.messages().some((m) => m.includes('alice')), { timeout: 15_000 }).toBe(true);
    expect(received.length).toBeGreaterThan(0);
    const delivered = row('collector').getByRole('cell').nth(4); // Type and format, Where, State, Backlog, Delivered
    await expect.poll(async () => Number(await delivered.textContent()), { timeout: 15_000 }).toBeGreaterThan(0);
    if (process.env.UPDATE_SCREENSHOT) {
      // The page down to the sinks (the form to add one below them left out).
      await page.evaluate(() => window.scrollTo(0, 0)); // the table's box is where the window shows it
      const table = (await page.getByRole('table', { name: 'Sinks' }).boundingBox())!;
      await page.screenshot({
        path: path.resolve(import.meta.dirname, '../../docs/console-auditing.png'),
        fullPage: true,
        clip: { x: 0, y: 0, width: page.viewportSize()!.width, height: Math.ceil(table.y + table.height + 16) },
      });
    }
    await checkPage('auditing');

    // The mode and its bound, saved with a button.
    await page.getByLabel('Mode').selectOption('blocking');
    await page.getByLabel(/^Bound/).fill('500');
    await page.getByRole('button', { name: 'Save auditing' }).click();
    await expect
      .poll(async () => (await api('GET', AUDITING)).json)
      .toMatchObject({ mode: 'blocking', max_backlog: 500 });
    await page.getByLabel('Mode').selectOption('best_effort');
    await page.getByRole('button', { name: 'Save auditing' }).click();
    await expect.poll(async () => (await api('GET', AUDITING)).json.mode).toBe('best_effort');

    // The collector down, a change: the page says the sink fails, since when and why.
    await collector.stop();
    await newUser('bob');
    await expect
      .poll(() => row('collector').getByRole('cell').nth(2).textContent(), { timeout: 20_000 })
      .toMatch(/^Failing since .+: .+/);
    expect(await row('collector').getAttribute('class')).toBe('warning');
    await checkPage('auditing-failing');

    // A webhook at an http:// URL: the API's refusal, in its words, beside the form (kept for a correction).
    await add.getByLabel('Sink name').fill('hook');
    await add.getByLabel('Type').selectOption('webhook');
    await add.getByLabel('Webhook URL').fill('http://127.0.0.1:9/events');
    await add.getByLabel('Secret').fill('a-secret-of-sixteen-or-more');
    await add.getByRole('button', { name: 'Add sink' }).click();
    await add.getByRole('alert').filter({ hasText: '"url" must be https://' }).waitFor();
    expect(await add.getByLabel('Webhook URL').inputValue()).toBe('http://127.0.0.1:9/events');
    expect(await sinkNames()).toEqual(['collector']);

    // An existing webhook edited without its secret keeps it (the API refuses a webhook without one).
    const saved = (await api('GET', AUDITING)).json.sinks;
    expect(
      (
        await api('PUT', AUDITING, {
          sinks: [
            ...saved,
            {
              name: 'hook',
              type: 'webhook',
              format: 'json',
              url: 'https://127.0.0.1:9/events',
              secret: 'x'.repeat(32),
            },
          ],
        })
      ).status,
    ).toBe(200);
    await row('hook').waitFor({ timeout: 15_000 });
    await rowAction('hook', 'Edit');
    const edit = page.getByRole('dialog');
    expect(await edit.textContent()).toContain('leave empty to keep');
    await checkPage('auditing-edit-dialog');
    await edit.getByLabel('Format').selectOption('ocsf');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved the sink hook.' }).waitFor();
    const hook = ((await api('GET', AUDITING)).json.sinks as { name: string; format: string }[]).find(
      (s) => s.name === 'hook',
    );
    expect(hook?.format).toBe('ocsf');

    // Removed once confirmed: gone from the page and from the API.
    await rowAction('collector', 'Remove');
    const confirm = page.getByRole('dialog', { name: 'Remove the sink collector?' });
    await confirm.getByRole('button', { name: 'Remove sink collector' }).click();
    await page.getByRole('status').filter({ hasText: 'Removed the sink collector.' }).waitFor();
    expect(await row('collector').count()).toBe(0);
    expect(await sinkNames()).toEqual(['hook']);
    expect(problems).toEqual([]);
  }, 120_000);
});
