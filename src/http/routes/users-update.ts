import { toUserView } from '../../users/user-view.js';
import { UpdateUserBody } from '../../users/user-write-schemas.js';
import { callerOf } from '../authenticate.js';
import { USER_CHANGE_ERRORS } from '../error-schemas.js';
import { contextOf } from '../request-context.js';
import { CALLER, DryRunQuery, isDryRun, UidParams, UserView } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

/** PUT /v1/users/{uid}: who may manage users changes anyone; users their own password and alerts. */
export function usersUpdateRoute(
  app: TesseraApp,
  { userUpdate, clock, policy }: Pick<HttpServices, 'userUpdate' | 'clock' | 'policy'>,
): void {
  app.put(
    '/v1/users/:uid',
    {
      config: {
        access: 'caller',
        errors: [
          ...USER_CHANGE_ERRORS,
          'password_not_complex',
          'new_password_same_as_current',
          'name_already_exists',
          'email_already_exists',
          'change_last_admin_role_not_allowed',
        ],
      },
      schema: {
        tags: ['users'],
        summary: 'Change a user: anyone for update_user (admin, user_manager); yourself: password and alerts',
        description:
          'Changing your own password with Basic credentials needs nothing more (they prove the current one); ' +
          'with a token, give old_password too.',
        security: CALLER,
        params: UidParams,
        querystring: DryRunQuery,
        body: UpdateUserBody,
        response: { 200: UserView },
      },
    },
    async (request) => {
      const uid = Number(request.params.uid);
      const user = await userUpdate.update(
        callerOf(request),
        uid,
        request.body,
        contextOf(request),
        isDryRun(request.query),
      );
      return toUserView(user, await policy.get(), new Date(clock()));
    },
  );
}
