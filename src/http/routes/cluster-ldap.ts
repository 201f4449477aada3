import Type from 'typebox';
import {
  CACHE_TTL_MAX,
  CBA_IDENTITY_SOURCES,
  DIRECTORY_TIMEOUT_RANGE,
  type LdapConfig,
} from '../../ldap/ldap-config.js';
import { callerOf } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { CALLER, Ok, StringEnum } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

const Query = Type.Union(
  [
    Type.Object(
      {
        base: Type.String({
          minLength: 1,
          maxLength: 1024,
          description: 'where the search starts, e.g. "ou=people,dc=example,dc=com"',
        }),
        filter: Type.String({
          minLength: 1,
          maxLength: 1024,
          description: "RFC 4515; %u: the user name, %D: the user's DN (both escaped)",
        }),
        scope: StringEnum(['base', 'one', 'subtree'] as const),
      },
      { additionalProperties: false },
    ),
    Type.Object({}, { additionalProperties: false }),
  ],
  { description: 'a search, or {} for none' },
);

const text = (description: string, maxLength = 1024) => Type.String({ maxLength, description });

/** The product's `ldap` object. */
const LdapFields = {
  uris: Type.Array(Type.String({ maxLength: 512 }), {
    maxItems: 16,
    description: 'LDAP servers, tried in order: scheme, host and port only (ldap://host:389, ldaps://host:636)',
  }),
  starttls: Type.Boolean({ description: 'upgrade ldap:// connections with StartTLS' }),
  ca_cert: text("PEM CA certificate(s) the directory's TLS certificate must chain to", 65_536),
  bind_dn: text('the service account that runs searches (empty: anonymous)'),
  bind_pass: text('its password; answered as "***", never as itself'),
  user_dn_template: text('a user name to its DN, %u the name: "uid=%u,ou=people,dc=example,dc=com"'),
  user_dn_query: Query,
  dn_group_attr: text("the user entry's attribute that lists its groups (memberOf)", 256),
  dn_group_query: Query,
  cache_ttl: Type.Integer({
    minimum: 0,
    maximum: CACHE_TTL_MAX,
    description: 'seconds a directory answer is trusted (default 300)',
  }),
  directory_timeout_s: Type.Integer({
    minimum: DIRECTORY_TIMEOUT_RANGE[0],
    maximum: DIRECTORY_TIMEOUT_RANGE[1],
    description: 'seconds to wait for the directory (default 5)',
  }),
  control_plane: Type.Boolean({ description: 'LDAP logins to the API and the console' }),
  data_plane: Type.Boolean({ description: 'kept as given: Tessera serves no data plane' }),
  cba: Type.Boolean({
    description:
      "certificate logins of directory users: a trusted client certificate names its user (cba_identity_source), the directory's groups give its roles (while control_plane and mtls_certificate_authentication are on)",
  }),
  cba_identity_source: Type.Unsafe<(typeof CBA_IDENTITY_SOURCES)[number]>({
    ...StringEnum(CBA_IDENTITY_SOURCES),
    description: "what names the directory user: the subject's CN, or the subject attribute of cba_identity_oid",
  }),
  cba_identity_oid: text('the dotted OID of that subject attribute ("1.2.3.4")', 128),
};

export const LdapView = Type.Object(LdapFields);
const LdapBody = Type.Partial(Type.Object(LdapFields), { additionalProperties: false });

/** GET/PUT/DELETE /v1/cluster/ldap: how operators log in with their directory account. */
export function clusterLdapRoutes(app: TesseraApp, { ldap }: Pick<HttpServices, 'ldap'>): void {
  const doc = { tags: ['ldap'], security: CALLER };
  app.get(
    '/v1/cluster/ldap',
    {
      config: { access: 'view_ldap_config' },
      schema: {
        ...doc,
        summary: 'The LDAP configuration, bind_pass masked (view_ldap_config: admin, user_manager)',
        response: { 200: LdapView },
      },
    },
    () => ldap.get(),
  );
  app.put(
    '/v1/cluster/ldap',
    {
      config: {
        access: 'config_ldap',
        errors: ['illegal_fields_combination', 'missing_field', 'ldap_connection_failed'],
      },
      schema: {
        ...doc,
        summary:
          'Set LDAP: the fields given change, the rest stay; a change of uris, bind_dn, starttls or ca_cert needs bind_pass again; settings that cannot bind are refused (config_ldap: admin)',
        body: LdapBody,
        response: { 200: LdapView },
      },
    },
    (request) => ldap.put(callerOf(request), request.body as Partial<LdapConfig>, contextOf(request)),
  );
  app.delete(
    '/v1/cluster/ldap',
    {
      config: { access: 'config_ldap' },
      schema: {
        ...doc,
        summary: 'Clear the LDAP configuration: LDAP logins end (config_ldap: admin)',
        response: { 200: Ok },
      },
    },
    async (request) => {
      await ldap.delete(callerOf(request), contextOf(request));
      return {};
    },
  );
}
