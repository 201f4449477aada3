import Type from 'typebox';
import { callerOf } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { CALLER, Ok, UidParams } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

/** The product's `ldap_mapping`. */
const LdapMappingView = Type.Object({
  uid: Type.Integer(),
  name: Type.String(),
  dn: Type.String({ description: "the directory group's DN" }),
  role_uids: Type.Array(Type.Integer()),
  email: Type.String(),
  email_alerts: Type.Boolean(),
  cluster_email_alerts: Type.Boolean(),
  bdbs_email_alerts: Type.Optional(Type.Array(Type.String())),
});

const MappingBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 256 })),
    dn: Type.Optional(Type.String({ maxLength: 1024 })),
    // The product's own examples send uids as strings ("1") as well as numbers.
    role_uids: Type.Optional(
      Type.Array(Type.Union([Type.Integer({ minimum: 1 }), Type.String({ pattern: '^[0-9]{1,9}$' })]), {
        maxItems: 100,
      }),
    ),
    email: Type.Optional(Type.String({ maxLength: 256 })),
    email_alerts: Type.Optional(Type.Boolean()),
    cluster_email_alerts: Type.Optional(Type.Boolean()),
    bdbs_email_alerts: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 1000 })),
  },
  { additionalProperties: false },
);

/** /v1/ldap_mappings: which directory group gets which roles. */
export function ldapMappingsRoutes(app: TesseraApp, { ldapMappings }: Pick<HttpServices, 'ldapMappings'>): void {
  const doc = { tags: ['ldap'], security: CALLER };
  app.get(
    '/v1/ldap_mappings',
    {
      config: { access: 'view_all_ldap_mappings_info' },
      schema: {
        ...doc,
        summary: 'Every LDAP mapping (view_all_ldap_mappings_info: admin, user_manager)',
        response: { 200: Type.Array(LdapMappingView) },
      },
    },
    () => ldapMappings.list(),
  );
  app.get(
    '/v1/ldap_mappings/:uid',
    {
      config: { access: 'view_ldap_mapping_info', errors: ['ldap_mapping_not_exist'] },
      schema: {
        ...doc,
        summary: 'One LDAP mapping (view_ldap_mapping_info: admin, user_manager)',
        params: UidParams,
        response: { 200: LdapMappingView },
      },
    },
    (request) => ldapMappings.get(Number(request.params.uid)),
  );
  app.post(
    '/v1/ldap_mappings',
    {
      config: {
        access: 'create_ldap_mapping',
        errors: [
          'missing_field',
          'name_already_exists',
          'invalid_dn_param',
          'invalid_name_param',
          'invalid_role_uids_param',
          'unauthorized_action',
        ],
      },
      schema: {
        ...doc,
        summary:
          'Map a directory group to roles: name, dn, role_uids (create_ldap_mapping: admin, user_manager; a role of admin management: admin only, 403 unauthorized_action)',
        body: MappingBody,
        response: { 200: LdapMappingView },
      },
    },
    (request) => ldapMappings.create(callerOf(request), request.body, contextOf(request)),
  );
  app.put(
    '/v1/ldap_mappings/:uid',
    {
      config: {
        access: 'update_ldap_mapping',
        errors: [
          'ldap_mapping_not_exist',
          'name_already_exists',
          'invalid_dn_param',
          'invalid_name_param',
          'invalid_role_uids_param',
          'unauthorized_action',
        ],
      },
      schema: {
        ...doc,
        summary:
          'Change a mapping: the fields given change; every directory user logs in again (update_ldap_mapping: admin, user_manager; a mapping to a role of admin management, before or after: admin only, 403 unauthorized_action)',
        params: UidParams,
        body: MappingBody,
        response: { 200: LdapMappingView },
      },
    },
    (request) => ldapMappings.update(callerOf(request), Number(request.params.uid), request.body, contextOf(request)),
  );
  app.delete(
    '/v1/ldap_mappings/:uid',
    {
      config: { access: 'delete_ldap_mapping', errors: ['ldap_mapping_not_exist', 'unauthorized_action'] },
      schema: {
        ...doc,
        summary:
          'Delete a mapping; every directory user logs in again (delete_ldap_mapping: admin, user_manager; a mapping to a role of admin management: admin only, 403 unauthorized_action)',
        params: UidParams,
        response: { 200: Ok },
      },
    },
    async (request) => {
      await ldapMappings.delete(callerOf(request), Number(request.params.uid), contextOf(request));
      return {};
    },
  );
}
