import Type from 'typebox';
import { ClusterSettingsObjectSchema } from '../../policy/product-fields.js';
import { callerOf } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { CALLER } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

/**
 * GET and PUT /v1/cluster/policy: the product's cluster settings — the lockout settings,
 * effective at once, and the database and shard policy fields, kept as given and answered with
 * the reference's defaults until set (policy/product-fields.ts; nothing acts on them).
 */
export function clusterPolicyRoutes(app: TesseraApp, { cluster }: Pick<HttpServices, 'cluster'>): void {
  const doc = { tags: ['cluster'], security: CALLER };
  app.get(
    '/v1/cluster/policy',
    {
      config: { access: 'view_cluster_info' },
      schema: {
        ...doc,
        summary: 'The cluster settings (view_cluster_info)',
        response: { 200: ClusterSettingsObjectSchema },
      },
    },
    () => cluster.settingsObject(),
  );
  app.put(
    '/v1/cluster/policy',
    {
      config: { access: 'update_cluster' },
      schema: {
        ...doc,
        summary:
          'Change the settings named in the body, at once (the database and shard fields are kept as given: Tessera has none) (update_cluster: admin)',
        body: Type.Partial(ClusterSettingsObjectSchema, { additionalProperties: false }),
        response: { 200: ClusterSettingsObjectSchema },
      },
    },
    (request) => cluster.updateSettings(callerOf(request), request.body, contextOf(request)),
  );
}
