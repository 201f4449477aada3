import Type from 'typebox';
import type { TesseraApp } from '../../app.js';
import { ADMIN_ONLY, principalWithRole } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { ERROR_RESPONSES } from '../schemas.js';

/** POST /v1/keys/rotate: stages a new signing key; it is published now and signs later. */
export function keysRotateRoute(app: TesseraApp): void {
  const Rotated = Type.Object({ kid: Type.String(), activates_at: Type.String() });
  app.post('/v1/keys/rotate', { schema: { response: { 200: Rotated, ...ERROR_RESPONSES } } }, async (request) => {
    const actor = await principalWithRole(request, app.tessera, ADMIN_ONLY);
    const { kid, activatesAt } = await app.tessera.keys.rotate();
    app.tessera.audit.record(contextOf(request), {
      event: 'key_rotate',
      outcome: 'success',
      username: actor.username,
      uid: actor.uid,
      reason: kid,
    });
    return { kid, activates_at: activatesAt.toISOString() };
  });
}
