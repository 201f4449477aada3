import type { ErrorCode } from '../../errors.js';
import { newPassword } from '../../users/new-password.js';
import { contextOf } from '../request-context.js';
import { CALLER, DeletePasswordBody, Ok, PasswordBody } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

/**
 * PUT (replace all), POST (add one) and DELETE (remove one) /v1/users/password, for the
 * user making the request (its Basic credentials prove the current password, so does a token
 * of a login of the last five minutes; an older token sends `old_password`), for another user
 * named by `username` (who may manage that user), or, without credentials, for `username`
 * with `old_password` (how an expired one is replaced).
 */
export function usersPasswordRoutes(app: TesseraApp, { passwordChanges }: Pick<HttpServices, 'passwordChanges'>): void {
  const doc = { tags: ['users'], security: [...CALLER, {}] };
  const config = {
    access: 'optional' as const,
    errors: [
      ...[
        'invalid_request',
        'password_not_complex',
        'new_password_same_as_current',
        'cannot_delete_last_password',
        'too_many_passwords',
        'account_locked',
        'too_many_requests',
      ],
      ...['unauthorized_action', 'user_not_exist', 'user_not_found', 'directory_user', 'certificate_user'],
    ] as ErrorCode[],
  };
  const schema = { ...doc, body: PasswordBody, response: { 200: Ok } };
  app.put(
    '/v1/users/password',
    { config, schema: { ...schema, summary: 'Replace every password with new_password' } },
    async (request) => {
      const ctx = contextOf(request);
      const { actor, target } = await passwordChanges.target(
        request.principal ?? null,
        request.body.username,
        request.body.old_password,
        ctx,
      );
      await passwordChanges.replace(
        actor,
        target,
        newPassword(request.body.new_password, request.body.password_hash_method),
        ctx,
      );
      return {};
    },
  );
  app.post(
    '/v1/users/password',
    { config, schema: { ...schema, summary: 'Add new_password beside the current one (a rotation, two at most)' } },
    async (request) => {
      const ctx = contextOf(request);
      const { actor, target, proof } = await passwordChanges.target(
        request.principal ?? null,
        request.body.username,
        request.body.old_password,
        ctx,
      );
      await passwordChanges.add(
        actor,
        target,
        newPassword(request.body.new_password, request.body.password_hash_method),
        ctx,
        proof,
      );
      return {};
    },
  );
  app.delete(
    '/v1/users/password',
    {
      config,
      schema: {
        ...doc,
        summary: 'Remove old_password, one of two in a rotation',
        body: DeletePasswordBody,
        response: { 200: Ok },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const { actor, target } = await passwordChanges.target(
        request.principal ?? null,
        request.body.username,
        request.body.old_password,
        ctx,
      );
      await passwordChanges.delete(actor, target, request.body.old_password, ctx);
      return {};
    },
  );
}
