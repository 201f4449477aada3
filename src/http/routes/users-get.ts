import type { Tessera } from '../../tessera.js';
import type { TesseraApp } from '../tessera-app.js';
import { callerOf } from '../authenticate.js';
import { CALLER, UidParams, UserView } from '../schemas.js';
import { toUserView } from '../../users/user-view.js';

/** GET /v1/users/{uid}: the user itself, or anyone for view_user_info. */
export function usersGetRoute(app: TesseraApp, { accounts, clock, policy, userReads }: Pick<Tessera, 'accounts' | 'clock' | 'policy' | 'userReads'>): void {
  const read = (uid: number) => userReads.get(uid);
  app.get(
    '/v1/users/:uid',
    {
      config: { access: 'caller', errors: ['forbidden', 'user_not_found'] },
      schema: {
        tags: ['users'],
        summary: 'One user: yourself, or anyone for view_user_info (admin, user_manager)',
        security: CALLER,
        params: UidParams,
        response: { 200: UserView },
      },
    },
    async (request) => {
      const user = await accounts.view(callerOf(request), Number(request.params.uid), read);
      return toUserView(user, await policy.get(), new Date(clock()));
    },
  );
}
