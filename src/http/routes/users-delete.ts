import { callerOf } from '../authenticate.js';
import { USER_CHANGE_ERRORS } from '../error-schemas.js';
import { contextOf } from '../request-context.js';
import { CALLER, Ok, UidParams } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

/** DELETE /v1/users/{uid}: admin and user_manager; never the last admin. */
export function usersDeleteRoute(app: TesseraApp, { userDeletion }: Pick<HttpServices, 'userDeletion'>): void {
  app.delete(
    '/v1/users/:uid',
    {
      config: { access: 'delete_user', errors: [...USER_CHANGE_ERRORS, 'delete_last_admin_not_allowed'] },
      schema: {
        tags: ['users'],
        summary: 'Delete a user; never the last admin (delete_user: admin, user_manager)',
        security: CALLER,
        params: UidParams,
        response: { 200: Ok },
      },
    },
    async (request) => {
      await userDeletion.delete(callerOf(request), Number(request.params.uid), contextOf(request));
      return {};
    },
  );
}
