import Type from 'typebox';
import { toUserView } from '../../users/user-view.js';
import { CreateUserBody } from '../../users/user-write-schemas.js';
import { callerOf } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { CALLER, DryRunQuery, isDryRun, UserView } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

/** POST /v1/users: a user with a name and/or an email, a role and/or role_uids (create_new_user). */
export function usersCreateRoute(
  app: TesseraApp,
  { userCreation, clock, policy }: Pick<HttpServices, 'userCreation' | 'clock' | 'policy'>,
): void {
  app.post(
    '/v1/users',
    {
      config: {
        access: 'create_new_user',
        errors: [
          'password_not_complex',
          'name_already_exists',
          'email_already_exists',
          'unauthorized_action',
          'certificate_user',
        ],
      },
      schema: {
        tags: ['users'],
        summary: 'Add a user (create_new_user: admin, user_manager); ?dry_run=true checks and adds nothing',
        security: CALLER,
        querystring: DryRunQuery,
        body: CreateUserBody,
        response: {
          200: Type.Union([UserView, Type.Object({}, { description: 'dry_run: the request would succeed' })]),
        },
      },
    },
    async (request) => {
      const user = await userCreation.create(callerOf(request), request.body, contextOf(request), {
        dryRun: isDryRun(request.query),
      });
      return user ? toUserView(user, await policy.get(), new Date(clock())) : {};
    },
  );
}
