import type { TesseraApp } from '../tessera-app.js';
import { InvalidRequestError } from '../../errors.js';
import { principalWithRole, USER_ADMIN_ROLES } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { CALLER, CreateUserBody, ERROR_RESPONSES, UserView } from '../schemas.js';
import { toUserView } from '../../users/user-view.js';

/** POST /v1/users: admin and user_manager add a user, named by username or email. */
export function usersCreateRoute(app: TesseraApp): void {
  const { accounts, policy, clock } = app.tessera;
  app.post('/v1/users', {
      schema: {
        tags: ['users'],
        summary: 'Add a user (admin, user_manager)',
        security: CALLER,
        body: CreateUserBody,
        response: { 200: UserView, ...ERROR_RESPONSES },
      },
    }, async (request) => {
    const actor = await principalWithRole(request, app.tessera, USER_ADMIN_ROLES);
    const { username, email, password, role, name } = request.body;
    if ((username === undefined) === (email === undefined)) {
      throw new InvalidRequestError('Give exactly one of "username" and "email"');
    }
    const user = await accounts.create(actor, { username: (username ?? email)!, password, role, name }, contextOf(request));
    return toUserView(user, await policy.get(), new Date(clock()));
  });
}
