import Type from 'typebox';
import { actorOf } from '../../audit/audit-log.js';
import { SIGNING_ALGS } from '../../tokens/signing-alg.js';
import { callerOf } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { CALLER, StringEnum } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

/** POST /v1/keys/rotate `{"alg"?}`: stages a new signing key; it is published now and signs later. */
export function keysRotateRoute(app: TesseraApp, { audit, keys }: Pick<HttpServices, 'audit' | 'keys'>): void {
  const Alg = StringEnum(SIGNING_ALGS);
  const RotateBody = Type.Object({ alg: Type.Optional(Alg) });
  const Rotated = Type.Object({ kid: Type.String(), alg: Alg, activates_at: Type.String({ format: 'date-time' }) });
  const schema = {
    tags: ['keys'],
    summary: 'Stage a new signing key: published now, signing after the activation delay (admin)',
    security: CALLER,
    body: RotateBody,
    response: { 200: Rotated },
  };
  app.post('/v1/keys/rotate', { config: { access: 'rotate_signing_keys' }, schema }, async (request) => {
    const actor = callerOf(request);
    const { kid, alg, activatesAt } = await keys.rotate(request.body?.alg);
    audit.record(contextOf(request), {
      event: 'key_rotate',
      outcome: 'success',
      ...actorOf(actor),
      target: `signing_key ${kid}`,
    });
    return { kid, alg, activates_at: activatesAt.toISOString() };
  });
}
