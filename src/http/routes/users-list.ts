import Type from 'typebox';
import { toUserView } from '../../users/user-view.js';
import { CALLER, UserView } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

/** GET /v1/users: every user (view_all_users_info). */
export function usersListRoute(
  app: TesseraApp,
  { clock, policy, users }: Pick<HttpServices, 'clock' | 'policy' | 'users'>,
): void {
  app.get(
    '/v1/users',
    {
      config: { access: 'view_all_users_info' },
      schema: {
        tags: ['users'],
        summary: 'Every user (view_all_users_info: admin, user_manager)',
        security: CALLER,
        response: { 200: Type.Array(UserView) },
      },
    },
    async () => {
      const [all, p] = await Promise.all([users.list(), policy.get()]);
      const now = new Date(clock());
      return all.map((u) => toUserView(u, p, now));
    },
  );
}
