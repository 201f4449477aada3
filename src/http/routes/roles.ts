import Type from 'typebox';
import { callerOf } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { CALLER, CreateRoleBody, DryRunQuery, isDryRun, Ok, RoleView, UidParams, UpdateRoleBody } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

/** /v1/roles and /v1/roles/{uid}: the product's roles, each a name and a management level. */
export function rolesRoutes(app: TesseraApp, { roles }: Pick<HttpServices, 'roles'>): void {
  const doc = { tags: ['roles'], security: CALLER };
  const DryRunAnswer = Type.Object({}, { description: 'dry_run: the request would succeed' });
  app.get(
    '/v1/roles',
    {
      config: { access: 'view_all_roles_info' },
      schema: { ...doc, summary: 'Every role (view_all_roles_info)', response: { 200: Type.Array(RoleView) } },
    },
    () => roles.list(),
  );
  app.get(
    '/v1/roles/:uid',
    {
      config: { access: 'view_role_info', errors: ['role_not_found'] },
      schema: { ...doc, summary: 'One role (view_role_info)', params: UidParams, response: { 200: RoleView } },
    },
    (request) => roles.get(Number(request.params.uid)),
  );
  app.post(
    '/v1/roles',
    {
      config: { access: 'create_role', errors: ['name_already_exists', 'uid_already_exists', 'unauthorized_action'] },
      schema: {
        ...doc,
        summary: 'Add a role (create_role: admin, user_manager; admin management: admin only)',
        querystring: DryRunQuery,
        body: CreateRoleBody,
        response: { 200: Type.Union([RoleView, DryRunAnswer]) },
      },
    },
    async (request) =>
      (await roles.create(callerOf(request), request.body, contextOf(request), isDryRun(request.query))) ?? {},
  );
  app.put(
    '/v1/roles/:uid',
    {
      config: {
        access: 'update_role',
        errors: [
          'role_not_found',
          'name_already_exists',
          'unauthorized_action',
          'change_last_admin_role_not_allowed',
          'update_builtin_role_not_allowed',
        ],
      },
      schema: {
        ...doc,
        summary:
          "Change a role; a new management ends its holders' tokens; the built-in roles (uids 1-8) keep their name and management: 406 update_builtin_role_not_allowed (update_role: admin, user_manager)",
        params: UidParams,
        querystring: DryRunQuery,
        body: UpdateRoleBody,
        response: { 200: RoleView },
      },
    },
    (request) =>
      roles.update(
        callerOf(request),
        Number(request.params.uid),
        request.body,
        contextOf(request),
        isDryRun(request.query),
      ),
  );
  app.delete(
    '/v1/roles/:uid',
    {
      config: {
        access: 'delete_role',
        errors: ['role_not_found', 'unauthorized_action', 'role_in_use', 'delete_builtin_role_not_allowed'],
      },
      schema: {
        ...doc,
        summary:
          'Delete a role no user holds; the built-in roles (uids 1-8) are never deleted: 406 delete_builtin_role_not_allowed (delete_role: admin, user_manager)',
        params: UidParams,
        response: { 200: Ok },
      },
    },
    async (request) => {
      await roles.delete(callerOf(request), Number(request.params.uid), contextOf(request));
      return {};
    },
  );
}
