import { toUserView } from '../../users/user-view.js';
import { callerOf } from '../authenticate.js';
import { USER_CHANGE_ERRORS } from '../error-schemas.js';
import { contextOf } from '../request-context.js';
import { CALLER, UidParams, UserView } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

/** POST /v1/users/{uid}/expire-password: the user must choose a new password at the next login. */
export function usersExpirePasswordRoute(
  app: TesseraApp,
  { passwordChanges, clock, policy }: Pick<HttpServices, 'passwordChanges' | 'clock' | 'policy'>,
): void {
  app.post(
    '/v1/users/:uid/expire-password',
    {
      config: { access: 'update_user', errors: USER_CHANGE_ERRORS },
      schema: {
        tags: ['users'],
        summary: 'Expire a password now: the next login must choose a new one (update_user: admin, user_manager)',
        security: CALLER,
        params: UidParams,
        response: { 200: UserView },
      },
    },
    async (request) => {
      const user = await passwordChanges.expire(callerOf(request), Number(request.params.uid), contextOf(request));
      return toUserView(user, await policy.get(), new Date(clock()));
    },
  );
}
