import type { FastifyRequest } from 'fastify';
import type { Principal } from '../../auth/principal.js';
import { MissingCredentialsError, UnauthorizedActionError, UserNotExistError } from '../../errors.js';
import type { Tessera } from '../../tessera.js';
import type { User } from '../../users/user.js';
import { usernameKey } from '../../users/username.js';
import type { TesseraApp } from '../tessera-app.js';
import { principalOf } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { CALLER, DeletePasswordBody, ERROR_RESPONSES, Ok, PasswordBody } from '../schemas.js';

/**
 * PUT (replace all), POST (add one) and DELETE (remove one) /v1/users/password. Users act
 * for themselves with their current password in the body, which is how an expired password
 * is replaced; an admin, authenticated by the header, acts for anyone named in the body.
 */
export function usersPasswordRoutes(app: TesseraApp): void {
  const { accounts } = app.tessera;
  // Users act for themselves with old_password in the body (no header: how an expired password is replaced).
  const doc = { tags: ['users'], security: [...CALLER, {}] };
  const schema = { ...doc, body: PasswordBody, response: { 200: Ok, ...ERROR_RESPONSES } };
  app.put('/v1/users/password', { schema: { ...schema, summary: 'Replace every password with new_password' } }, async (request) => {
    const { actor, target } = await actorAndTarget(request, app.tessera, request.body);
    await accounts.replacePasswords(actor, target, request.body.new_password, contextOf(request));
    return {};
  });
  app.post('/v1/users/password', { schema: { ...schema, summary: 'Add new_password beside the current one (a rotation, two at most)' } }, async (request) => {
    const { actor, target } = await actorAndTarget(request, app.tessera, request.body);
    await accounts.addPassword(actor, target, request.body.new_password, contextOf(request));
    return {};
  });
  app.delete(
    '/v1/users/password',
    { schema: { ...doc, summary: 'Remove old_password, one of two in a rotation', body: DeletePasswordBody, response: { 200: Ok, ...ERROR_RESPONSES } } },
    async (request) => {
      const { actor, target } = await actorAndTarget(request, app.tessera, request.body);
      await accounts.deletePassword(actor, target, request.body.old_password, contextOf(request));
      return {};
    },
  );
}

async function actorAndTarget(
  request: FastifyRequest,
  tessera: Tessera,
  body: { username?: string; old_password?: string },
): Promise<{ actor: Principal; target: User }> {
  const principal = request.headers.authorization ? await principalOf(request, tessera) : undefined;
  const named = body.username;
  const forOther = principal && named !== undefined && usernameKey(named) !== usernameKey(principal.username);
  if (forOther) {
    if (principal.role !== 'admin') throw new UnauthorizedActionError('Only an admin may change the password of another user');
    const target = await tessera.users.findByUsername(named);
    if (!target) throw new UserNotExistError();
    return { actor: principal, target };
  }
  const username = named ?? principal?.username;
  if (username === undefined || body.old_password === undefined) {
    throw new MissingCredentialsError('Give "username" and "old_password" to change your own password');
  }
  const { user } = await tessera.auth.checkPassword({ username, password: body.old_password }, contextOf(request), {
    allowExpired: true,
  });
  return { actor: principal ?? { uid: user.uid, username: user.username, role: user.role }, target: user };
}
