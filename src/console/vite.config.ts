import path from 'node:path';
import { defineConfig } from 'vite';

// The web console: built to dist/console during `npm install` (npm run build), served by Tessera at /.
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  build: {
    outDir: path.resolve(import.meta.dirname, '../../dist/console'),
    emptyOutDir: true,
    // No inline script may run under the console's CSP.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
});
