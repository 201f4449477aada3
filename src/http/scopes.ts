import { authenticateRequests } from './authenticate.js';
import { changesAsUnits } from './changes.js';
import { acceptJsonBodies } from './json-body.js';
import { collectMethods } from './method-not-allowed.js';
import { apiKeysRoutes } from './routes/api-keys.js';
import { authorizeRoute } from './routes/authorize.js';
import { authorizeMfaRoute } from './routes/authorize-mfa.js';
import { clusterRoutes } from './routes/cluster.js';
import { clusterAuditingRoutes } from './routes/cluster-auditing.js';
import { clusterCertificatesRoutes } from './routes/cluster-certificates.js';
import { clusterLdapRoutes } from './routes/cluster-ldap.js';
import { clusterPolicyRoutes } from './routes/cluster-policy.js';
import { clusterSsoRoutes } from './routes/cluster-sso.js';
import { discoveryRoutes } from './routes/discovery.js';
import { healthzRoute } from './routes/healthz.js';
import { introspectRoute } from './routes/introspect.js';
import { jwksRoute } from './routes/jwks.js';
import { keysListRoute } from './routes/keys-list.js';
import { keysRotateRoute } from './routes/keys-rotate.js';
import { ldapMappingsRoutes } from './routes/ldap-mappings.js';
import { logoutRoute } from './routes/logout.js';
import { logsRoute } from './routes/logs.js';
import { mfaRoutes } from './routes/mfa.js';
import { openApiDocumentRoute } from './routes/openapi-document.js';
import { passwordRulesRoute } from './routes/password-rules.js';
import { readyzRoute } from './routes/readyz.js';
import { refreshJwtRoute } from './routes/refresh-jwt.js';
import { revocationsRoute } from './routes/revocations.js';
import { rolesRoutes } from './routes/roles.js';
import { sessionsRoutes } from './routes/sessions.js';
import { ssoSignInRoutes } from './routes/sso-sign-in.js';
import { usersCreateRoute } from './routes/users-create.js';
import { usersDeleteRoute } from './routes/users-delete.js';
import { usersExpirePasswordRoute } from './routes/users-expire-password.js';
import { usersGetRoute } from './routes/users-get.js';
import { usersListRoute } from './routes/users-list.js';
import { usersPasswordRoutes } from './routes/users-password.js';
import { usersPermissionsRoute } from './routes/users-permissions.js';
import { usersUnlockRoute } from './routes/users-unlock.js';
import { usersUpdateRoute } from './routes/users-update.js';
import type { HttpServices } from './services.js';
import type { TesseraApp } from './tessera-app.js';

/** A route gets the services it names in its signature; the scope hands them from the composition root. */
type Route = (app: TesseraApp, services: HttpServices) => void;

/** A Fastify plugin of these routes, where a known path's other methods answer 405. */
function scope(routes: Route[], setUp: (app: TesseraApp) => void = () => {}) {
  return async (app: TesseraApp) => {
    setUp(app);
    const addMethodNotAllowed = collectMethods(app);
    for (const route of routes) route(app, app.services);
    addMethodNotAllowed();
  };
}

/** The REST API under /v1: JSON bodies only (whatever the Content-Type says). */
export const api = scope(
  [
    ...[authorizeRoute, authorizeMfaRoute, refreshJwtRoute, logoutRoute, usersPasswordRoutes, passwordRulesRoute],
    ...[
      usersPermissionsRoute,
      usersListRoute,
      usersGetRoute,
      usersCreateRoute,
      usersUpdateRoute,
      usersDeleteRoute,
      usersUnlockRoute,
      usersExpirePasswordRoute,
      sessionsRoutes,
      apiKeysRoutes,
      mfaRoutes,
    ],
    ...[
      rolesRoutes,
      clusterRoutes,
      clusterPolicyRoutes,
      clusterAuditingRoutes,
      clusterLdapRoutes,
      ldapMappingsRoutes,
      clusterCertificatesRoutes,
      clusterSsoRoutes,
      ssoSignInRoutes,
    ],
    ...[keysListRoute, keysRotateRoute, revocationsRoute, introspectRoute, logsRoute, openApiDocumentRoute],
  ],
  (app) => {
    acceptJsonBodies(app);
    authenticateRequests(app);
    changesAsUnits(app);
  },
);

/** The public documents under /.well-known: keys and discovery. */
export const wellKnown = scope([jwksRoute, discoveryRoutes]);

/** Liveness and readiness for load balancers and orchestrators. */
export const probes = scope([healthzRoute, readyzRoute]);
