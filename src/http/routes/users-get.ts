import type { TesseraApp } from '../tessera-app.js';
import { UserNotFoundError } from '../../errors.js';
import { principalOf, requireRole, USER_ADMIN_ROLES } from '../authenticate.js';
import { CALLER, ERROR_RESPONSES, UidParams, UserView } from '../schemas.js';
import { toUserView } from '../../users/user-view.js';

/** GET /v1/users/{uid}: the user itself, admin or user_manager. */
export function usersGetRoute(app: TesseraApp): void {
  const { userReads, policy, clock } = app.tessera;
  app.get(
    '/v1/users/:uid',
    {
      schema: {
        tags: ['users'],
        summary: 'One user: yourself, or anyone for admin and user_manager',
        security: CALLER,
        params: UidParams,
        response: { 200: UserView, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const uid = Number(request.params.uid);
      const principal = await principalOf(request, app.tessera);
      if (principal.uid !== uid) requireRole(principal, USER_ADMIN_ROLES);
      const user = await userReads.get(uid);
      if (!user) throw new UserNotFoundError();
      return toUserView(user, await policy.get(), new Date(clock()));
    },
  );
}
