import Type from 'typebox';
import { PASSWORD_HASHING_ALGORITHMS } from '../../policy/policy.js';
import { ClusterObjectSchema } from '../../policy/product-fields.js';
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
 * certificate users' tokens. The product's other fields (alerts, e-mail, its own servers'
 * ports…) are kept as given and answered, with the reference's defaults until set
 * (policy/product-fields.ts); nothing acts on them.
 */
export function clusterRoutes(app: TesseraApp, { cluster }: Pick<HttpServices, 'cluster'>): void {
  const doc = { tags: ['cluster'], security: CALLER };
  app.get(
    '/v1/cluster',
    {
      config: { access: 'view_cluster_info' },
      schema: { ...doc, summary: 'The cluster object (view_cluster_info)', response: { 200: ClusterObjectSchema } },
    },
    () => cluster.clusterObject(),
  );
  app.put(
    '/v1/cluster',
    {
      config: { access: 'update_cluster' },
      schema: {
        ...doc,
        summary:
          "Change the fields named in the body, at once on this node and within a second on others (the product's fields Tessera has no use for are kept as given); read-only fields as GET answers them are no change; ?dry_run checks and changes nothing (update_cluster: admin)",
        querystring: DryRunQuery,
        body: Type.Partial(ClusterObjectSchema, { additionalProperties: false }),
        response: { 200: ClusterObjectSchema },
      },
    },
    (request) => cluster.updateCluster(callerOf(request), request.body, contextOf(request), isDryRun(request.query)),
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
