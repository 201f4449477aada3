import type { Tessera } from '../../tessera.js';
import type { TesseraApp } from '../tessera-app.js';
import { NotReadyError } from '../../errors.js';
import { ANYONE } from '../schemas.js';
import Type from 'typebox';

/** GET /readyz: 200 when the store (and Redis, when configured) answer; 503 otherwise. */
export function readyzRoute(app: TesseraApp, { readiness }: Pick<Tessera, 'readiness'>): void {
  const Ready = Type.Object({ status: Type.Literal('ready'), store: Type.Boolean(), redis: Type.Optional(Type.Boolean()) });
  app.get('/readyz', { config: { errors: ['not_ready'] }, schema: { tags: ['operations'], summary: 'Ready: the store (and Redis) answer', security: ANYONE, response: { 200: Ready } } }, async () => {
    const checks = await readiness();
    const down = Object.entries(checks).filter(([, up]) => !up).map(([name]) => name);
    if (down.length > 0) throw new NotReadyError(`Not ready: ${down.join(' and ')} unreachable`);
    return { status: 'ready' as const, ...checks };
  });
}
