import Type from 'typebox';
import { ANYONE } from '../schemas.js';
import type { TesseraApp } from '../tessera-app.js';

/** GET /healthz: the process is up and answering. */
export function healthzRoute(app: TesseraApp): void {
  const schema = {
    tags: ['operations'],
    summary: 'Alive: the process answers (whatever the store does)',
    security: ANYONE,
    response: { 200: Type.Object({ status: Type.Literal('ok') }) },
  };
  app.get('/healthz', { schema, config: { whileStarting: true } }, async () => ({ status: 'ok' as const }));
}
