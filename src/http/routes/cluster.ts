import Type from 'typebox';
import { publicUrlOf } from '../../config/config.js';
import type { Policy } from '../../policy/policy.js';
import { ClusterFieldsSchema, clusterNameOf, PASSWORD_HASHING_ALGORITHMS } from '../../policy/policy.js';
import { callerOf } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { CALLER, DryRunQuery, isDryRun, StringEnum } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

/**
 * GET and PUT /v1/cluster: the fields of the product's cluster object that Tessera keeps —
 * its name, the password rules and expiry, the console's session timeout, whether Basic
 * credentials are taken beside tokens, whether a scrape of the metrics needs credentials
 * (metrics_auth), the lowest TLS version of the API's listener (min_control_TLS_version), and client certificate authentication (mtls_*): a change of those ends
 * certificate users' tokens. Other fields of the product's object are refused.
 */
export function clusterRoutes(
  app: TesseraApp,
  { cluster, config, policy }: Pick<HttpServices, 'cluster' | 'config' | 'policy'>,
): void {
  const doc = { tags: ['cluster'], security: CALLER };
  const view = (p: Policy) => ({
    name: clusterNameOf(p, publicUrlOf(config)),
    password_complexity: p.password_complexity,
    password_min_length: p.password_min_length,
    password_expiration_duration: p.password_expiration_duration,
    cm_session_timeout_minutes: p.cm_session_timeout_minutes,
    session_max_lifetime_minutes: p.session_max_lifetime_minutes,
    control_plane_basic_authentication: p.control_plane_basic_authentication,
    metrics_auth: p.metrics_auth,
    min_control_TLS_version: p.min_control_TLS_version,
    mtls_certificate_authentication: p.mtls_certificate_authentication,
    mtls_client_cert_subject_validation_type: p.mtls_client_cert_subject_validation_type,
    mtls_authorized_subjects: p.mtls_authorized_subjects,
  });
  app.get(
    '/v1/cluster',
    {
      config: { access: 'view_cluster_info' },
      schema: { ...doc, summary: 'The cluster (view_cluster_info)', response: { 200: ClusterFieldsSchema } },
    },
    async () => view(await policy.get()),
  );
  app.put(
    '/v1/cluster',
    {
      config: { access: 'update_cluster' },
      schema: {
        ...doc,
        summary:
          'Change the fields named in the body, at once on this node and within a second on others; ?dry_run checks and changes nothing (update_cluster: admin)',
        querystring: DryRunQuery,
        body: Type.Partial(ClusterFieldsSchema, { additionalProperties: false }),
        response: { 200: ClusterFieldsSchema },
      },
    },
    async (request) => {
      return view(await cluster.update(callerOf(request), request.body, contextOf(request), isDryRun(request.query)));
    },
  );
  app.patch(
    '/v1/cluster/change_password_hashing_algorithm',
    {
      config: { access: 'update_cluster' },
      schema: {
        ...doc,
        summary:
          "The product's choice of password hashing (7.8.6+): kept and audited, but Tessera keeps argon2id for every password, stronger than SHA-256 or PBKDF2 — nothing is rehashed; the algorithm already set (SHA-256 at first, the product's default) is 400 (update_cluster: admin)",
        body: Type.Object({ algorithm: StringEnum(PASSWORD_HASHING_ALGORITHMS) }, { additionalProperties: false }),
        response: { 200: Type.Object({}) },
      },
    },
    async (request) => {
      await cluster.changePasswordHashingAlgorithm(callerOf(request), request.body.algorithm, contextOf(request));
      return {};
    },
  );
}
