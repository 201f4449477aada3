import type { TesseraApp } from '../tessera-app.js';
import { ADMIN_ONLY, principalWithRole } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { CALLER, ERROR_RESPONSES } from '../schemas.js';
import { PolicyPatchSchema, PolicySchema } from '../../policy/policy.js';

/** GET and PUT /v1/cluster/policy: admin only; a change is effective at once. */
export function clusterPolicyRoutes(app: TesseraApp): void {
  const { policy, audit } = app.tessera;
  const doc = { tags: ['policy'], security: CALLER };
  app.get('/v1/cluster/policy', { schema: { ...doc, summary: 'The password and lockout policy (admin)', response: { 200: PolicySchema, ...ERROR_RESPONSES } } }, async (request) => {
    await principalWithRole(request, app.tessera, ADMIN_ONLY);
    return policy.get();
  });
  app.put(
    '/v1/cluster/policy',
    {
      schema: {
        ...doc,
        summary: 'Change the settings named in the body, at once (admin)',
        body: PolicyPatchSchema,
        response: { 200: PolicySchema, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const actor = await principalWithRole(request, app.tessera, ADMIN_ONLY);
      const updated = await policy.update(request.body);
      audit.record(contextOf(request), {
        event: 'policy_update',
        outcome: 'success',
        username: actor.username,
        uid: actor.uid,
        changes: Object.keys(request.body),
      });
      return updated;
    },
  );
}
