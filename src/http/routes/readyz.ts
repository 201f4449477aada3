import type { TesseraApp } from '../tessera-app.js';
import { NotReadyError } from '../../errors.js';
import { ANYONE, ERROR_RESPONSES } from '../schemas.js';
import Type from 'typebox';

/** GET /readyz: 200 when the store (and Redis, when configured) answer; 503 otherwise. */
export function readyzRoute(app: TesseraApp): void {
  const Ready = Type.Object({ status: Type.Literal('ready'), store: Type.Boolean(), redis: Type.Optional(Type.Boolean()) });
  app.get('/readyz', { schema: { tags: ['operations'], summary: 'Ready: the store (and Redis) answer', security: ANYONE, response: { 200: Ready, ...ERROR_RESPONSES } } }, async () => {
    const checks = await app.tessera.readiness();
    const down = Object.entries(checks).filter(([, up]) => !up).map(([name]) => name);
    if (down.length > 0) throw new NotReadyError(`Not ready: ${down.join(' and ')} unreachable`);
    return { status: 'ready' as const, ...checks };
  });
}
