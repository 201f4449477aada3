import Type from 'typebox';
import type { SsoPatch } from '../../sso/sso-config.js';
import { callerOf } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { CALLER, Ok, StringEnum } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

const url = (description: string) => Type.String({ maxLength: 2048, description });

const Issuer = {
  id: Type.String({
    maxLength: 1024,
    description: "the identity provider's entity ID; its assertions must name it as their Issuer",
  }),
  login_url: url('its sign-in URL (SingleSignOnService, HTTP-Redirect)'),
  logout_url: url('its sign-out URL (SingleLogoutService, HTTP-Redirect); empty: none'),
  metadata: Type.String({ description: 'the metadata it was set from (base64), read-only' }),
};
const Saml2 = Type.Object({
  entity_id: url("the service provider's entity ID: `<address>/sp`"),
  acs_url: url(
    'where the identity provider posts its answers: `<address>/v1/cluster/sso/saml/acs` (`<address>/cluster/sso/saml/acs`, advertised before, still takes answers addressed to it)',
  ),
  slo_url: url(
    'where it sends its logout answers: `<address>/v1/cluster/sso/saml/slo` (`<address>/cluster/sso/saml/slo` still served)',
  ),
});

/** The product's `sso` object. */
const SsoView = Type.Object({
  control_plane: Type.Boolean({ description: 'SSO sign-in for the console (default false)' }),
  enforce_control_plane: Type.Boolean({
    description: 'SSO the only sign-in for users who are not admins: their passwords no longer log in (default false)',
  }),
  protocol: StringEnum(['saml2'] as const),
  issuer: Type.Object(Issuer),
  service: Type.Object({
    address: url('the base URL the identity provider and browsers reach Tessera at (default: the public URL)'),
    saml2: Saml2,
  }),
});
const SsoBody = Type.Object(
  {
    control_plane: Type.Optional(Type.Boolean()),
    enforce_control_plane: Type.Optional(Type.Boolean()),
    protocol: Type.Optional(StringEnum(['saml2'] as const)),
    issuer: Type.Optional(Type.Partial(Type.Object(Issuer), { additionalProperties: false })),
    service: Type.Optional(
      Type.Object(
        {
          address: Type.Optional(url('the base URL, without a path')),
          saml2: Type.Optional(Type.Unknown({ description: 'read-only: ignored' })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    additionalProperties: false,
    'x-examples': { 'turn on': { summary: 'SSO on, with the identity provider set', value: { control_plane: true } } },
  },
);

/** /v1/cluster/sso (8.0.6+): the console's SAML single sign-on, as the product configures it. */
export function clusterSsoRoutes(app: TesseraApp, { sso }: Pick<HttpServices, 'sso'>): void {
  const doc = { tags: ['sso'], security: CALLER };
  app.get(
    '/v1/cluster/sso',
    {
      config: { access: 'view_sso' },
      schema: { ...doc, summary: 'The SSO configuration (view_sso)', response: { 200: SsoView } },
    },
    () => sso.get(),
  );
  app.put(
    '/v1/cluster/sso',
    {
      config: { access: 'config_sso', errors: ['missing_param', 'missing_certificate'] },
      schema: {
        ...doc,
        summary:
          'Set SSO: the fields given change; turning it on needs issuer.id, issuer.login_url (400 missing_param) and the sso_service and sso_issuer certificates (406 missing_certificate) (config_sso: admin)',
        body: SsoBody,
        response: { 200: SsoView },
      },
    },
    (request) => sso.put(callerOf(request), request.body as SsoPatch, contextOf(request)),
  );
  app.delete(
    '/v1/cluster/sso',
    {
      config: { access: 'config_sso' },
      schema: {
        ...doc,
        summary: "Clear SSO: its settings and both certificates; SSO users' tokens end (config_sso: admin)",
        response: { 200: Ok },
      },
    },
    async (request) => {
      await sso.delete(callerOf(request), contextOf(request));
      return {};
    },
  );
  app.get(
    '/v1/cluster/sso/saml/metadata/sp',
    {
      config: { access: 'view_sso', errors: ['missing_certificate'] },
      schema: {
        ...doc,
        summary:
          "The service provider's SAML metadata (XML, signed with the sso_service key), for the identity provider (view_sso)",
        response: {
          200: {
            description: 'SAML 2.0 metadata',
            content: { 'application/samlmetadata+xml': { schema: Type.String() } },
          },
        },
      },
    },
    async (_request, reply) => {
      const xml = await sso.spMetadata();
      return reply.type('application/samlmetadata+xml').send(xml);
    },
  );
  app.post(
    '/v1/cluster/sso/saml/metadata/idp',
    {
      config: { access: 'config_sso', errors: ['saml_metadata_parsing_error', 'saml_metadata_validation_error'] },
      schema: {
        ...doc,
        summary:
          'Set the identity provider from its metadata (base64 XML): its entity ID and HTTP-Redirect sign-in and sign-out URLs; its certificate is given apart, as sso_issuer (config_sso: admin)',
        body: Type.Object(
          {
            idp_metadata: Type.String({
              minLength: 1,
              maxLength: 262_144,
              description: "the identity provider's metadata XML, base64",
            }),
          },
          { additionalProperties: false },
        ),
        response: { 200: SsoView },
      },
      bodyLimit: 384 * 1024,
    },
    (request) => sso.uploadIdpMetadata(callerOf(request), request.body.idp_metadata, contextOf(request)),
  );
}
