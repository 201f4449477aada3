import type { TesseraApp } from '../tessera-app.js';

/** GET /healthz: the process is up and answering. */
export function healthzRoute(app: TesseraApp): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
}
