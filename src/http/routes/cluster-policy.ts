import Type from 'typebox';
import { ClusterSettingsSchema } from '../../policy/policy.js';
import { callerOf } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { CALLER } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

/** GET and PUT /v1/cluster/policy: the lockout settings (the product's cluster_settings); a change is effective at once. */
export function clusterPolicyRoutes(
  app: TesseraApp,
  { cluster, policy }: Pick<HttpServices, 'cluster' | 'policy'>,
): void {
  const doc = { tags: ['cluster'], security: CALLER };
  const settings = async () => {
    const { login_lockout_threshold, login_lockout_duration, login_lockout_counter_reset_after } = await policy.get();
    return { login_lockout_threshold, login_lockout_duration, login_lockout_counter_reset_after };
  };
  app.get(
    '/v1/cluster/policy',
    {
      config: { access: 'view_cluster_info' },
      schema: { ...doc, summary: 'The lockout settings (view_cluster_info)', response: { 200: ClusterSettingsSchema } },
    },
    settings,
  );
  app.put(
    '/v1/cluster/policy',
    {
      config: { access: 'update_cluster' },
      schema: {
        ...doc,
        summary: 'Change the lockout settings named in the body, at once (update_cluster: admin)',
        body: Type.Partial(ClusterSettingsSchema, { additionalProperties: false }),
        response: { 200: ClusterSettingsSchema },
      },
    },
    async (request) => {
      await cluster.update(callerOf(request), request.body, contextOf(request));
      return settings();
    },
  );
}
