import type { TesseraApp } from '../tessera-app.js';
import { principalWithRole, USER_ADMIN_ROLES } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { CALLER, ERROR_RESPONSES, UidParams, UserView } from '../schemas.js';
import { toUserView } from '../../users/user-view.js';

/** POST /v1/users/{uid}/expire-password: the user must choose a new password at the next login. */
export function usersExpirePasswordRoute(app: TesseraApp): void {
  const { accounts, policy, clock } = app.tessera;
  app.post(
    '/v1/users/:uid/expire-password',
    {
      schema: {
        tags: ['users'],
        summary: 'Expire a password now: the next login must choose a new one (admin, user_manager)',
        security: CALLER,
        params: UidParams,
        response: { 200: UserView, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const actor = await principalWithRole(request, app.tessera, USER_ADMIN_ROLES);
      const user = await accounts.expirePassword(actor, Number(request.params.uid), contextOf(request));
      return toUserView(user, await policy.get(), new Date(clock()));
    },
  );
}
