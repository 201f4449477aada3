import Type from 'typebox';
import { SIGNING_ALGS } from '../../tokens/signing-alg.js';
import { CALLER, StringEnum } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

/** GET /v1/keys: the key ring — kid, algorithm, state and activation time of each key (admin). */
export function keysListRoute(app: TesseraApp, { keys }: Pick<HttpServices, 'keys'>): void {
  const Key = Type.Object({
    kid: Type.String(),
    alg: StringEnum(SIGNING_ALGS),
    state: StringEnum(['next', 'active', 'retired'] as const),
    activates_at: Type.Union([Type.String(), Type.Null()], {
      description: 'ISO 8601 date-time a staged key starts signing, or null',
    }),
  });
  const schema = {
    tags: ['keys'],
    summary: 'The signing keys: the one that signs, a staged one, retired ones still published (admin)',
    security: CALLER,
    response: { 200: Type.Array(Key) },
  };
  app.get('/v1/keys', { config: { access: 'view_signing_keys' }, schema }, async () => {
    return keys
      .list()
      .map(({ kid, alg, state, activateAt }) => ({ kid, alg, state, activates_at: activateAt?.toISOString() ?? null }));
  });
}
