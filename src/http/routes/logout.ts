import type { TesseraApp } from '../tessera-app.js';
import { splitAuthorization } from '../../auth/credentials.js';
import { InvalidRequestError } from '../../errors.js';
import { principalOf } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { CALLER, ERROR_RESPONSES, Ok } from '../schemas.js';

/** POST /v1/users/logout: revokes the presented token on every route and on refresh. */
export function logoutRoute(app: TesseraApp): void {
  app.post('/v1/users/logout', { schema: { tags: ['tokens'], summary: 'End the presented token', security: CALLER.slice(0, 2), response: { 200: Ok, ...ERROR_RESPONSES } } }, async (request) => {
    const header = request.headers.authorization;
    if (header && splitAuthorization(header).scheme === 'basic') {
      // There is no token to end; answering 200 would claim a logout that did nothing.
      throw new InvalidRequestError('Logout ends a token: present it as "Authorization: JWT <token>" or "Bearer <token>"');
    }
    await app.tessera.auth.logout(await principalOf(request, app.tessera), contextOf(request));
    return {};
  });
}
