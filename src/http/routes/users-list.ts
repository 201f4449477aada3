import { Type } from '@fastify/type-provider-typebox';
import type { TesseraApp } from '../../app.js';
import { principalOf, requireRole, USER_ADMIN_ROLES } from '../authenticate.js';
import { ERROR_RESPONSES, UserView } from '../schemas.js';
import { toUserView } from '../user-view.js';

/** GET /v1/users: every user, for admin and user_manager. */
export function usersListRoute(app: TesseraApp): void {
  const { auth, users, config, clock } = app.tessera;
  app.get(
    '/v1/users',
    { schema: { response: { 200: Type.Array(UserView), ...ERROR_RESPONSES } } },
    async (request) => {
      requireRole(await principalOf(request, auth, config.basicAuthOnProtectedRoutes), USER_ADMIN_ROLES);
      const now = new Date(clock());
      return (await users.list()).map((u) => toUserView(u, now));
    },
  );
}
