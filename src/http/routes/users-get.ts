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
    (request) => {
      const caller = callerOf(request);
      const uid = Number(request.params.uid);
      // Read within the second: answered without waiting (a token-protected read's hot path).
      const known = userReads.fresh(uid);
      const current = policy.fresh();
      if (known && current) return toUserView(accounts.viewRead(caller, uid, known.user), current, new Date(clock()));
      return (async () => toUserView(await accounts.view(caller, uid, read), await policy.get(), new Date(clock())))();
    },
  );
}
