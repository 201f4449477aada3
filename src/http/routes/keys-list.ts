import Type from 'typebox';
import type { TesseraApp } from '../tessera-app.js';
import { ADMIN_ONLY, principalWithRole } from '../authenticate.js';
import { CALLER, ERROR_RESPONSES, StringEnum } from '../schemas.js';
import { SIGNING_ALGS } from '../../tokens/signing-alg.js';

/** GET /v1/keys: the key ring — kid, algorithm, state and activation time of each key (admin). */
export function keysListRoute(app: TesseraApp): void {
  const Key = Type.Object({
    kid: Type.String(),
    alg: StringEnum(SIGNING_ALGS),
    state: StringEnum(['next', 'active', 'retired'] as const),
    activates_at: Type.Union([Type.String(), Type.Null()], { description: 'ISO 8601 date-time a staged key starts signing, or null' }),
  });
  const schema = {
    tags: ['keys'],
    summary: 'The signing keys: the one that signs, a staged one, retired ones still published (admin)',
    security: CALLER,
    response: { 200: Type.Array(Key), ...ERROR_RESPONSES },
  };
  app.get('/v1/keys', { schema }, async (request) => {
    await principalWithRole(request, app.tessera, ADMIN_ONLY);
    return app.tessera.keys.list().map(({ kid, alg, state, activateAt }) => ({ kid, alg, state, activates_at: activateAt?.toISOString() ?? null }));
  });
}
