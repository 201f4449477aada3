import type { TesseraApp } from '../tessera-app.js';
import { principalWithRole, USER_ADMIN_ROLES } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { CALLER, ERROR_RESPONSES, Ok, UidParams } from '../schemas.js';

/** DELETE /v1/users/{uid}: admin and user_manager; never the last admin. */
export function usersDeleteRoute(app: TesseraApp): void {
  app.delete('/v1/users/:uid', {
      schema: {
        tags: ['users'],
        summary: 'Delete a user; never the last admin (admin, user_manager)',
        security: CALLER,
        params: UidParams,
        response: { 200: Ok, ...ERROR_RESPONSES },
      },
    }, async (request) => {
    const actor = await principalWithRole(request, app.tessera, USER_ADMIN_ROLES);
    await app.tessera.accounts.delete(actor, Number(request.params.uid), contextOf(request));
    return {};
  });
}
