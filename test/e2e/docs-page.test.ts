import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { browserAvailable, launchBrowser } from '../helpers/browser.js';
import { FAST_ARGON2_ENV, startServe } from '../helpers/cli.js';

/** The API reference at /docs in a real browser: within its own Content-Security-Policy, and `<token>` shown as written. */
it.skipIf(!browserAvailable())(
  'renders /docs with no CSP violation, and shows "JWT <token>" as text',
  async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-docs-page-'));
    const server = await startServe(['--no-tls', '--metrics-listen', 'off'], {
      ...FAST_ARGON2_ENV,
      TESSERA_DATA_DIR: dataDir,
    });
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`${server.url}/docs/`);
      await page.getByText('Authorization: JWT <token>', { exact: false }).first().waitFor();
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
  60_000,
);
