import Type from 'typebox';
import { toRoleView } from '../../roles/role.js';
import { callerOf } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { CALLER, CreateRoleBody, DryRunQuery, isDryRun, Ok, RoleView, UidParams, UpdateRoleBody } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

/** /v1/roles and /v1/roles/{uid}: the product's roles, each a name, a management level and the databases it is limited to. */
export function rolesRoutes(app: TesseraApp, { roles }: Pick<HttpServices, 'roles'>): void {
  const doc = { tags: ['roles'], security: CALLER };
  const DryRunAnswer = Type.Object({}, { description: 'dry_run: the request would succeed' });
  app.get(
    '/v1/roles',
    {
      config: { access: 'view_all_roles_info' },
      schema: { ...doc, summary: 'Every role (view_all_roles_info)', response: { 200: Type.Array(RoleView) } },
    },
    async () => (await roles.list()).map(toRoleView),
  );
  app.get(
    '/v1/roles/:uid',
    {
      config: { access: 'view_role_info', errors: ['role_not_found'] },
      schema: { ...doc, summary: 'One role (view_role_info)', params: UidParams, response: { 200: RoleView } },
    },
    async (request) => toRoleView(await roles.get(Number(request.params.uid))),
  );
  app.post(
    '/v1/roles',
    {
      config: { access: 'create_role', errors: ['name_already_exists', 'uid_already_exists', 'unauthorized_action'] },
      schema: {
        ...doc,
        summary:
          'Add a role (create_role: admin, user_manager; admin management: admin only); resources limit a db_member or db_viewer role to some databases',
        querystring: DryRunQuery,
        body: CreateRoleBody,
        response: { 200: Type.Union([RoleView, DryRunAnswer]) },
      },
    },
    async (request) => {
      const role = await roles.create(callerOf(request), request.body, contextOf(request), isDryRun(request.query));
      return role ? toRoleView(role) : {};
    },
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
          "Change a role; a new management or new resources end its holders' tokens; the built-in roles (uids 1-8) keep their name, management and resources: 406 update_builtin_role_not_allowed; the role sent back as GET answers it (uid too) is no change (update_role: admin, user_manager)",
        params: UidParams,
        querystring: DryRunQuery,
        body: UpdateRoleBody,
        response: { 200: RoleView },
      },
    },
    async (request) =>
      toRoleView(
        await roles.update(
          callerOf(request),
          Number(request.params.uid),
          request.body,
          contextOf(request),
          isDryRun(request.query),
        ),
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
          'Delete a role no user holds; the built-in roles (uids 1-8) are never deleted: 406 delete_builtin_role_not_allowed; ?dry_run checks and deletes nothing (delete_role: admin, user_manager)',
        params: UidParams,
        querystring: DryRunQuery,
        response: { 200: Ok },
      },
    },
    async (request) => {
      await roles.delete(callerOf(request), Number(request.params.uid), contextOf(request), isDryRun(request.query));
      return {};
    },
  );
}
