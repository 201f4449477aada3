import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { registerErrorHandling } from './http/error-response.js';
import { acceptJsonBodies } from './http/json-body.js';
import { authorizeRoute } from './http/routes/authorize.js';
import { healthzRoute } from './http/routes/healthz.js';
import { jwksRoute } from './http/routes/jwks.js';
import { refreshJwtRoute } from './http/routes/refresh-jwt.js';
import { usersGetRoute } from './http/routes/users-get.js';
import { usersListRoute } from './http/routes/users-list.js';
import type { Tessera } from './tessera.js';

declare module 'fastify' {
  interface FastifyInstance {
    tessera: Tessera;
  }
}

export type TesseraApp = FastifyInstance<any, any, any, any, TypeBoxTypeProvider>;

export interface AppOptions {
  logger?: FastifyServerOptions['logger'];
  https?: { key: string | Buffer; cert: string | Buffer } | null;
}

/** Builds the HTTP app around an opened Tessera, without listening: tests use app.inject. */
export function buildApp(tessera: Tessera, options: AppOptions = {}): TesseraApp {
  const app = Fastify({
    logger: options.logger ?? false,
    ...(options.https ? { https: options.https } : {}),
    bodyLimit: tessera.config.bodyLimitBytes,
    // Types are what the client sent: "600" is not a ttl.
    ajv: { customOptions: { coerceTypes: false } },
    return503OnClosing: true,
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as TesseraApp;
  app.decorate('tessera', tessera);
  acceptJsonBodies(app);
  registerErrorHandling(app);
  for (const route of [authorizeRoute, refreshJwtRoute, usersListRoute, usersGetRoute, jwksRoute, healthzRoute]) {
    route(app);
  }
  return app;
}
