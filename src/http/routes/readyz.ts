import Type from 'typebox';
import { readyState } from '../../probes/readiness.js';
import { ANYONE } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

/** GET /readyz: 200 when started and the store (and Redis, when configured) answer; 503 otherwise. */
export function readyzRoute(app: TesseraApp, { readiness }: Pick<HttpServices, 'readiness'>): void {
  const Ready = Type.Object({
    status: Type.Literal('ready'),
    store: Type.Boolean(),
    redis: Type.Optional(Type.Boolean()),
  });
  // While starting, the start gate answers 503 `starting` before this route runs.
  app.get(
    '/readyz',
    {
      config: { errors: ['not_ready'] },
      schema: {
        tags: ['operations'],
        summary: 'Ready: started, and the store (and Redis) answer',
        security: ANYONE,
        response: { 200: Ready },
      },
    },
    () => readyState(true, readiness),
  );
}
