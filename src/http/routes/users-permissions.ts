import Type from 'typebox';
import { isRole, ROLES, type Role } from '../../access/management.js';
import { permissionsOf } from '../../access/permissions.js';
import { RoleNotFoundError } from '../../errors.js';
import { callerOf } from '../authenticate.js';
import { CALLER, StringEnum } from '../schemas.js';
import type { TesseraApp } from '../tessera-app.js';

const Permissions = Type.Object({
  api_permissions: Type.Array(Type.String(), {
    description: 'the API permissions of the level: what each route declares it needs (x-access)',
  }),
  ui_permissions: Type.Array(Type.String(), { description: 'the console pages the level sees' }),
});
const ByLevel = Type.Record(Type.String(), Permissions, { description: 'management level → its permissions' });

/**
 * The product's permission requests: every management level's permissions, one level's, and
 * the caller's own level — from the one table every route's check uses.
 */
export function usersPermissionsRoute(app: TesseraApp): void {
  const table = Object.fromEntries(ROLES.map((level) => [level, permissionsOf(level)])) as Record<
    Role,
    ReturnType<typeof permissionsOf>
  >;
  const doc = { tags: ['users'], security: CALLER };
  app.get(
    '/v1/users/permissions',
    {
      config: { access: 'caller' },
      schema: {
        ...doc,
        summary: 'The API and console permissions of each management level (anyone signed in)',
        response: { 200: ByLevel },
      },
    },
    async () => table,
  );
  app.get(
    '/v1/users/permissions/:role',
    {
      config: { access: 'caller', errors: ['role_not_found'] },
      schema: {
        ...doc,
        summary:
          'The API and console permissions of one management level, keyed by it (anyone signed in); 404 for a level that does not exist',
        params: Type.Object({
          role: Type.String({
            maxLength: 64,
            description: 'a management level: admin, user_manager, cluster_member, …',
          }),
        }),
        response: { 200: ByLevel },
      },
    },
    async (request) => {
      const { role } = request.params;
      if (!isRole(role)) throw new RoleNotFoundError();
      return { [role]: table[role] };
    },
  );
  app.get(
    '/v1/users/role',
    {
      config: { access: 'caller' },
      schema: {
        ...doc,
        summary: 'The management level of the caller: the highest of its own role and its roles (anyone signed in)',
        response: { 200: Type.Object({ role: StringEnum(ROLES) }) },
      },
    },
    async (request) => ({ role: callerOf(request).role }),
  );
}
