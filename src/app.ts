import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify';
import { answerClientError, answerFrameworkError, answerMissingHostAndExpect, SERVER_OPTIONS } from './http/client-errors.js';
import { registerErrorHandling } from './http/error-response.js';
import { acceptJsonBodies } from './http/json-body.js';
import { collectMethods } from './http/method-not-allowed.js';
import { logRequests } from './http/request-log.js';
import { authorizeRoute } from './http/routes/authorize.js';
import { clusterPolicyRoutes } from './http/routes/cluster-policy.js';
import { discoveryRoutes } from './http/routes/discovery.js';
import { healthzRoute } from './http/routes/healthz.js';
import { introspectRoute } from './http/routes/introspect.js';
import { jwksRoute } from './http/routes/jwks.js';
import { keysRotateRoute } from './http/routes/keys-rotate.js';
import { readyzRoute } from './http/routes/readyz.js';
import { logoutRoute } from './http/routes/logout.js';
import { refreshJwtRoute } from './http/routes/refresh-jwt.js';
import { revocationsRoute } from './http/routes/revocations.js';
import { usersCreateRoute } from './http/routes/users-create.js';
import { usersDeleteRoute } from './http/routes/users-delete.js';
import { usersGetRoute } from './http/routes/users-get.js';
import { usersListRoute } from './http/routes/users-list.js';
import { usersPasswordRoutes } from './http/routes/users-password.js';
import { usersUnlockRoute } from './http/routes/users-unlock.js';
import { usersUpdateRoute } from './http/routes/users-update.js';
import type { Tessera } from './tessera.js';

declare module 'fastify' {
  interface FastifyInstance {
    tessera: Tessera;
  }
}

export type TesseraApp = FastifyInstance<any, any, any, any, TypeBoxTypeProvider>;

export interface AppOptions {
  loggerInstance?: FastifyServerOptions['loggerInstance'];
  https?: { key: string | Buffer; cert: string | Buffer } | null;
}

/** Builds the HTTP app around an opened Tessera, without listening: tests use app.inject. */
export function buildApp(tessera: Tessera, options: AppOptions = {}): TesseraApp {
  const app = Fastify({
    ...(options.loggerInstance ? { loggerInstance: options.loggerInstance } : { logger: false }),
    ...(options.https ? { https: { ...options.https, ...SERVER_OPTIONS } } : { http: SERVER_OPTIONS }),
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError,
    bodyLimit: tessera.config.bodyLimitBytes,
    // Types are what the client sent ("600" is not a ttl), and unknown names in a strict
    // schema (the policy) are an error, not silently dropped.
    // `verbose` lets an unknown field's message list the known ones (validation-message.ts).
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, verbose: true } },
    return503OnClosing: true,
    logController: new LogController({ disableRequestLogging: true }), // one line a request instead, below
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as TesseraApp;
  app.decorate('tessera', tessera);
  acceptJsonBodies(app);
  registerErrorHandling(app);
  answerMissingHostAndExpect(app);
  logRequests(app);
  const addMethodNotAllowed = collectMethods(app);
  const routes = [
    ...[authorizeRoute, refreshJwtRoute, logoutRoute, usersPasswordRoutes],
    ...[usersListRoute, usersGetRoute, usersCreateRoute, usersUpdateRoute, usersDeleteRoute, usersUnlockRoute],
    ...[clusterPolicyRoutes, keysRotateRoute, revocationsRoute, introspectRoute, jwksRoute, discoveryRoutes, healthzRoute, readyzRoute],
  ];
  for (const route of routes) route(app);
  addMethodNotAllowed();
  return app;
}
