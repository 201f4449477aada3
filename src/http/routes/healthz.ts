import type { TesseraApp } from '../../app.js';

/** GET /healthz: the process is up and answering. */
export function healthzRoute(app: TesseraApp): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
}
