import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, browserAvailable, launchBrowser } from '../helpers/browser.js';
import { basic, FAST_ARGON2_ENV, request, type ServeProcess, startServe } from '../helpers/cli.js';

const ADMIN = 'root';
const ADMIN_PASSWORD = 'Root-password-1';
const OWNER = 'ops';
/** A cluster_viewer (built-in role 3): no Users page, but its own keys. */
const VIEWER = 'vic';
const VIEWER_PASSWORD = 'Vic-password-1';
const SERVICE = 'backup-bot';

/** A user's API keys in the web console, in a real browser (Debian's Chromium) against the real CLI server. */
describe.skipIf(!browserAvailable())('web console: API keys (Chromium)', () => {
  let dataDir: string;
  let server: ServeProcess;
  let browser: Browser;
  let context: BrowserContext | undefined;
  let ownerUid: number;
  let viewerUid: number;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-console-keys-'));
    server = await startServe(['--no-tls', '--auth-rate-limit', '0'], {
      ...FAST_ARGON2_ENV,
      TESSERA_DATA_DIR: dataDir,
      TESSERA_ADMIN_USERNAME: ADMIN,
      TESSERA_ADMIN_PASSWORD: ADMIN_PASSWORD,
    });
    // The key's owner holds two roles (cluster_member, user_manager): a key may act with one of them.
    const made = await request(`${server.url}/v1/users`, {
      method: 'POST',
      headers: { authorization: basic(ADMIN, ADMIN_PASSWORD) },
      body: JSON.stringify({ name: OWNER, password: 'Ops-password-1', role_uids: [2, 7] }),
    });
    expect(made.status).toBe(200);
    ownerUid = made.json.uid;
    const viewer = await request(`${server.url}/v1/users`, {
      method: 'POST',
      headers: { authorization: basic(ADMIN, ADMIN_PASSWORD) },
      body: JSON.stringify({ name: VIEWER, password: VIEWER_PASSWORD, role_uids: [3] }),
    });
    expect(viewer.status).toBe(200);
    viewerUid = viewer.json.uid;
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** What has the focus: its aria-label, else its label, else its text. */
  const focused = (page: Page) =>
    page.evaluate(() => {
      const el = document.activeElement as HTMLInputElement | null;
      return el?.getAttribute('aria-label') ?? el?.labels?.[0]?.textContent ?? el?.textContent?.trim();
    });

  /** GET /v1/users/{uid} (the owner by default) with the key as a bearer token, as automation would send it. */
  const withKey = async (key: string, path = `/v1/users/${ownerUid}`) => {
    const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, json: await res.json() };
  };

  /** The API as the admin, with Basic credentials. */
  const asAdmin = (path: string) =>
    request(`${server.url}${path}`, { headers: { authorization: basic(ADMIN, ADMIN_PASSWORD) } });

  /** A page of a fresh browser profile, signed in as the admin, with the owner's API keys open. */
  async function openKeys(options: { clipboard: boolean }) {
    const { page, pageErrors } = await signedIn(ADMIN, ADMIN_PASSWORD, options);
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('button', { name: `Actions for ${OWNER}`, exact: true }).click();
    await page
      .getByRole('menu', { name: `Actions for ${OWNER}` })
      .getByRole('menuitem', { name: 'API keys', exact: true })
      .click();
    const keys = page.getByRole('dialog', { name: `API keys of ${OWNER}` });
    await keys.getByRole('form', { name: `New API key of ${OWNER}` }).waitFor();
    return { page, keys, pageErrors };
  }

  /** A page of a fresh browser profile, signed in. */
  async function signedIn(username: string, password: string, options = { clipboard: true }) {
    await context?.close();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(10_000); // a failing step says which, before the test's own timeout
    if (options.clipboard) {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    } else {
      // A browser that gives the page no clipboard (an insecure origin, a policy).
      await context.addInitScript(() => Object.defineProperty(navigator, 'clipboard', { value: undefined }));
    }
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    await page.goto(server.url);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('header .who').textContent()).toContain(username);
    return { page, pageErrors };
  }

  /** Makes a key in an open API keys dialog, closes the dialog that showed it once, and answers the key. */
  async function makeKey(page: Page, keys: Locator, who: string, name: string) {
    await keys.getByLabel('Key name').fill(name);
    await keys.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('dialog', { name: `New API key of ${who}` });
    await shown.waitFor();
    const key = (await shown.getByLabel('New API key').textContent())!.trim();
    expect(key).toMatch(/^tsr_[0-9A-Za-z]{49}$/);
    await shown.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => shown.count()).toBe(0);
    await expect
      .poll(() => keys.getByRole('row', { name: new RegExp(name) }).textContent())
      .toContain(key.slice(0, 12));
    return key;
  }

  it('makes a key shown once, lists it by its prefix, and revokes it: the key is refused from then on', async () => {
    const { page, keys, pageErrors } = await openKeys({ clipboard: true });
    await keys.getByText(`${OWNER} has no API key.`).waitFor();

    // The form: a lifetime of 90 days offered, the cluster's longest (366 by default) its bound; only the owner's roles.
    const lifetime = keys.getByLabel('Lifetime (days)');
    expect(await lifetime.inputValue()).toBe('90');
    await expect.poll(() => lifetime.getAttribute('max')).toBe('366');
    const roles = keys.getByRole('group', { name: /^Roles of the key/ });
    expect((await roles.locator('label').allTextContents()).map((t) => t.trim())).toEqual([
      'Cluster Member (cluster_member)',
      'User Manager (user_manager)',
    ]);
    expect(await accessibilityViolations(page)).toEqual([]);

    // A refusal is said in the server's words next to the form, and nothing is made.
    await keys.getByLabel('Key name').fill('nightly backup');
    await keys.getByLabel('Lifetime (days)').fill('30');
    await roles.getByRole('checkbox', { name: 'Cluster Member (cluster_member)' }).check();
    await keys.getByLabel('Allowed addresses (optional)').fill('not-an-address');
    await keys.getByRole('button', { name: 'Create key' }).click();
    const form = keys.getByRole('form', { name: `New API key of ${OWNER}` });
    await expect.poll(() => form.getByRole('alert').textContent()).toContain('not-an-address');
    expect(await page.getByRole('dialog', { name: `New API key of ${OWNER}` }).count()).toBe(0);

    await keys.getByLabel('Allowed addresses (optional)').fill('');
    await keys.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('dialog', { name: `New API key of ${OWNER}` });
    await shown.waitFor();
    await expect.poll(() => focused(page)).toBe('New API key');
    const key = (await shown.getByLabel('New API key').textContent())!.trim();
    expect(key).toMatch(/^tsr_[0-9A-Za-z]{49}$/);
    expect(await shown.textContent()).toContain('It will not be shown again');
    await shown.getByRole('button', { name: 'Copy key' }).click();
    await shown.getByText('Copied.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    expect(await accessibilityViolations(page)).toEqual([]);

    await shown.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => shown.count()).toBe(0);
    expect(await focused(page)).toBe('Create key'); // back where the person was
    expect(await page.content()).not.toContain(key);
    // Nor in a field's value (which the markup does not show).
    const values = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLInputElement>('input, textarea')].map((e) => e.value),
    );
    expect(values.join('\n')).not.toContain(key.slice(12));

    // The key works as a bearer token, acting as its owner.
    const used = await withKey(key);
    expect(used.status).toBe(200);
    expect(used.json).toMatchObject({ uid: ownerUid, name: OWNER });

    // Listed by its prefix (never the rest), its role by name, its expiry in the console's date format.
    const prefix = key.slice(0, 12);
    const row = keys.getByRole('row', { name: /nightly backup/ });
    await expect.poll(() => row.textContent()).toContain(`${prefix}…`);
    const listed = (
      await request(`${server.url}/v1/users/${ownerUid}/api_keys`, {
        headers: { authorization: basic(ADMIN, ADMIN_PASSWORD) },
      })
    ).json as { prefix: string; expires: string; role_uids: number[] }[];
    expect(listed).toMatchObject([{ prefix, role_uids: [2] }]);
    const cells = await row.getByRole('cell').allTextContents();
    // The console's one format, in the browser's zone, which it names: 27 Nov 2026, 18:40:12 GMT+1.
    const expires = await page.evaluate((at) => {
      const d = new Date(at);
      const two = (n: number) => String(n).padStart(2, '0');
      const month = new Intl.DateTimeFormat('en-US', { month: 'short' }).format(d);
      return `${d.getDate()} ${month} ${d.getFullYear()}, ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
    }, listed[0]!.expires);
    expect(cells.slice(0, 6)).toEqual([
      `${prefix}…`,
      'Cluster Member',
      expect.any(String),
      expect.stringMatching(new RegExp(`^${expires} (UTC|GMT[+-]\\d{1,2}(:\\d\\d)?|[A-Z]{2,5})$`)),
      'never',
      'any',
    ]);
    const days = (Date.parse(listed[0]!.expires) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);

    // Revoked after a confirmation whose safe answer has the focus.
    await keys.getByRole('button', { name: `Revoke nightly backup (${prefix})` }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke nightly backup?' });
    expect(await confirm.textContent()).toMatch(/refused from now on.*cannot be undone/s);
    expect(await focused(page)).toBe('Cancel');
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await expect.poll(() => keys.getByRole('status').textContent()).toContain('Revoked the API key nightly backup');
    await keys.getByText(`${OWNER} has no API key.`).waitFor();
    expect(await focused(page)).toBe('Keys');

    const refused = await withKey(key);
    expect(refused.status).toBe(401);
    expect(refused.json.error_code).toBe('invalid_api_key');
    expect(pageErrors).toEqual([]);
  });

  it('works from the keyboard; without a clipboard the key is selected to copy by hand; Escape closes it for good', async () => {
    const { page, keys, pageErrors } = await openKeys({ clipboard: false });
    await keys.getByLabel('Key name').focus();
    await page.keyboard.type('deploy bot');
    await page.keyboard.press('Enter'); // 90 days, no role ticked: the roles the owner holds (an admin's key for it: as now)
    const shown = page.getByRole('dialog', { name: `New API key of ${OWNER}` });
    await shown.waitFor();
    await expect.poll(() => focused(page)).toBe('New API key');
    const key = (await shown.getByLabel('New API key').textContent())!.trim();
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('Copy key');
    await page.keyboard.press('Enter');
    await shown.getByText('copy it by hand').waitFor();
    expect(await page.evaluate(() => getSelection()?.toString())).toBe(key);

    await page.keyboard.press('Escape');
    await expect.poll(() => shown.count()).toBe(0);
    // The browser closes the dialog (focus back where it was opened from: Key name), then the page moves it.
    await expect.poll(() => focused(page)).toBe('Create key');
    expect(await page.content()).not.toContain(key);
    await expect
      .poll(() => keys.getByRole('row', { name: /deploy bot/ }).textContent())
      .toMatch(/Cluster Member.*User Manager|User Manager.*Cluster Member/);
    expect((await withKey(key)).status).toBe(200);
    expect(pageErrors).toEqual([]);
  });

  it('creates a service account in the form (no password), offers its first key, and the key works; its row says "API keys only" with no password action', async () => {
    const { page, pageErrors } = await signedIn(ADMIN, ADMIN_PASSWORD);
    await page.getByRole('link', { name: 'Users' }).click();
    const form = page.getByRole('form', { name: 'Create user' });
    await form.getByLabel("New user's name").fill(SERVICE);
    const ways = form.getByRole('group', { name: 'Signs in with' });
    expect(await ways.getByRole('radio').count()).toBe(3);
    expect(await ways.getByRole('radio', { name: 'a password', exact: true }).isChecked()).toBe(true);
    await ways.getByRole('radio', { name: 'API keys only: a service account (no password)' }).check();
    expect(await ways.textContent()).toContain('signs in with its API keys only');
    expect(await form.getByLabel('Certificate subject').count()).toBe(0);
    await form.getByRole('checkbox', { name: 'Cluster Viewer (cluster_viewer)' }).check();
    expect(await accessibilityViolations(page)).toEqual([]);
    const posts: string[] = [];
    page.on('request', (r) => r.method() === 'POST' && r.url().endsWith('/v1/users') && posts.push(r.postData()!));
    await form.getByRole('button', { name: 'Create user' }).click();

    // No password was sent or shown: the offer of its first key instead, which has the focus.
    const offer = page.getByRole('dialog', { name: `Created ${SERVICE}` });
    await offer.waitFor();
    expect(JSON.parse(posts[0]!)).toEqual({ name: SERVICE, auth_method: 'api_key', role_uids: [3] });
    expect(await offer.getByLabel('Generated password').count()).toBe(0);
    expect(await offer.textContent()).toMatch(/service account.*API keys only.*none yet/s);
    await expect.poll(() => focused(page)).toBe('Make its first API key');
    expect(await accessibilityViolations(page)).toEqual([]);
    const made = (await asAdmin('/v1/users')).json.find((u: { name: string }) => u.name === SERVICE);
    expect(made).toMatchObject({ auth_method: 'api_key', role_uids: [3] });

    await offer.getByRole('button', { name: 'Make its first API key' }).click();
    const keys = page.getByRole('dialog', { name: `API keys of ${SERVICE}` });
    await keys.getByText(`${SERVICE} has no API key.`).waitFor();
    expect(await offer.count()).toBe(0);
    // Its roles, and only they, offered for the key.
    const roles = keys.getByRole('group', { name: /^Roles of the key/ });
    expect((await roles.locator('label').allTextContents()).map((t) => t.trim())).toEqual([
      'Cluster Viewer (cluster_viewer)',
    ]);
    const key = await makeKey(page, keys, SERVICE, 'nightly export');

    // The key is the service account's way in: as a bearer credential, and for a token.
    const used = await withKey(key, `/v1/users/${made.uid}`);
    expect(used.status).toBe(200);
    expect(used.json).toMatchObject({ uid: made.uid, name: SERVICE, auth_method: 'api_key' });
    const token = await request(`${server.url}/v1/users/authorize`, {
      method: 'POST',
      body: JSON.stringify({ username: SERVICE, password: key }),
    });
    expect(token.status).toBe(200);

    await keys.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => keys.count()).toBe(0);
    await expect.poll(() => focused(page)).toBe(`Actions for ${SERVICE}`);

    // Its row: the way in in words, and no password to set or expire; a password user's row has them.
    /** A user's row on the Users page, by its name. */
    const rowOf = (name: string) =>
      page.getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) });
    const row = rowOf(SERVICE);
    expect(await row.getByRole('cell').nth(2).textContent()).toBe('API keys only (service account)');
    await row.getByRole('button', { name: `Actions for ${SERVICE}` }).click();
    const menu = page.getByRole('menu', { name: `Actions for ${SERVICE}` });
    expect(await menu.getByRole('menuitem').allTextContents()).toEqual(['Edit', 'Sessions', 'API keys', 'Delete']);
    await page.keyboard.press('Escape');
    const owner = rowOf(OWNER);
    expect(await owner.getByRole('cell').nth(2).textContent()).toBe('password');
    await owner.getByRole('button', { name: `Actions for ${OWNER}` }).click();
    expect(
      await page
        .getByRole('menu', { name: `Actions for ${OWNER}` })
        .getByRole('menuitem')
        .allTextContents(),
    ).toEqual(['Edit', 'Set password', 'Expire password', 'Sessions', 'API keys', 'Delete']);
    await page.keyboard.press('Escape');
    expect(pageErrors).toEqual([]);
  });

  it('a cluster_viewer makes and revokes a key of its own from My API keys: the key acts as it, then is refused', async () => {
    const { page, pageErrors } = await signedIn(VIEWER, VIEWER_PASSWORD);
    expect(await page.getByRole('link', { name: 'Users' }).count()).toBe(0); // not one who manages users
    await page.getByRole('button', { name: 'My API keys' }).click();
    const dialog = page.getByRole('dialog', { name: 'My API keys' });
    const keys = dialog.getByRole('region', { name: `API keys of ${VIEWER}` });
    await keys.getByText(`${VIEWER} has no API key.`).waitFor();
    // Its own role, read from its own user: the only one offered.
    const roles = keys.getByRole('group', { name: /^Roles of the key/ });
    await expect
      .poll(async () => (await roles.locator('label').allTextContents()).map((t) => t.trim()))
      .toEqual(['Cluster Viewer (cluster_viewer)']);
    expect(await accessibilityViolations(page)).toEqual([]);

    const key = await makeKey(page, keys, VIEWER, 'laptop script');
    const own = await withKey(key, `/v1/users/${viewerUid}`);
    expect(own.status).toBe(200);
    expect(own.json).toMatchObject({ uid: viewerUid, name: VIEWER });
    // With its owner's rights, no more: a cluster_viewer does not list users.
    expect((await withKey(key, '/v1/users')).status).toBe(403);
    const listed = (await asAdmin(`/v1/users/${viewerUid}/api_keys`)).json as { name: string; prefix: string }[];
    expect(listed).toMatchObject([{ name: 'laptop script', prefix: key.slice(0, 12) }]);

    await keys.getByRole('button', { name: `Revoke laptop script (${key.slice(0, 12)})` }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke laptop script?' });
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await expect.poll(() => keys.getByRole('status').textContent()).toContain('Revoked the API key laptop script');
    await keys.getByText(`${VIEWER} has no API key.`).waitFor();
    const refused = await withKey(key, `/v1/users/${viewerUid}`);
    expect(refused.status).toBe(401);
    expect(refused.json.error_code).toBe('invalid_api_key');
    expect((await asAdmin(`/v1/users/${viewerUid}/api_keys`)).json).toEqual([]);

    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await focused(page)).toBe('My API keys'); // back where the person was
    expect(pageErrors).toEqual([]);
  });
});
