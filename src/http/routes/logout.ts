import type { TesseraApp } from '../../app.js';
import { principalOf } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { ERROR_RESPONSES, Ok } from '../schemas.js';

/** POST /v1/users/logout: revokes the presented token on every route and on refresh. */
export function logoutRoute(app: TesseraApp): void {
  app.post('/v1/users/logout', { schema: { response: { 200: Ok, ...ERROR_RESPONSES } } }, async (request) => {
    await app.tessera.auth.logout(await principalOf(request, app.tessera), contextOf(request));
    return {};
  });
}
