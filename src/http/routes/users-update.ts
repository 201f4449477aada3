import type { TesseraApp } from '../tessera-app.js';
import { InvalidRequestError } from '../../errors.js';
import { principalOf } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { CALLER, ERROR_RESPONSES, UidParams, UpdateUserBody, UserView } from '../schemas.js';
import { toUserView } from '../../users/user-view.js';

/** PUT /v1/users/{uid}: admin and user_manager change anyone; users their own name and password. */
export function usersUpdateRoute(app: TesseraApp): void {
  const { accounts, auth, policy, clock } = app.tessera;
  app.put(
    '/v1/users/:uid',
    {
      schema: {
        tags: ['users'],
        summary: 'Change name, role or password: anyone for admin and user_manager; yourself, name and password',
        security: CALLER,
        params: UidParams,
        body: UpdateUserBody,
        response: { 200: UserView, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const uid = Number(request.params.uid);
      const ctx = contextOf(request);
      const actor = await principalOf(request, app.tessera);
      const { name, role, password, old_password } = request.body;
      if (password !== undefined && actor.uid === uid) {
        // Changing one's own password takes the current one (OWASP ASVS 2.1.6).
        if (old_password === undefined) throw new InvalidRequestError('old_password is required to change your own password');
        await auth.checkPassword({ username: actor.username, password: old_password }, ctx, { allowExpired: true });
      }
      const user = await accounts.update(actor, uid, { name, role, password }, ctx);
      return toUserView(user, await policy.get(), new Date(clock()));
    },
  );
}
