import Type from 'typebox';
import type { TesseraApp } from '../tessera-app.js';
import { principalWithRole, USER_ADMIN_ROLES } from '../authenticate.js';
import { CALLER, ERROR_RESPONSES, UserView } from '../schemas.js';
import { toUserView } from '../../users/user-view.js';

/** GET /v1/users: every user, for admin and user_manager. */
export function usersListRoute(app: TesseraApp): void {
  const { users, policy, clock } = app.tessera;
  app.get('/v1/users', {
      schema: {
        tags: ['users'],
        summary: 'Every user (admin, user_manager)',
        security: CALLER,
        response: { 200: Type.Array(UserView), ...ERROR_RESPONSES },
      },
    }, async (request) => {
    await principalWithRole(request, app.tessera, USER_ADMIN_ROLES);
    const [all, p] = await Promise.all([users.list(), policy.get()]);
    const now = new Date(clock());
    return all.map((u) => toUserView(u, p, now));
  });
}
