import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyServerOptions, LogController } from 'fastify';
import {
  answerClientError,
  answerFrameworkError,
  answerMissingHostAndExpect,
  SERVER_OPTIONS,
} from './http/client-errors.js';
import { consoleScope } from './http/console.js';
import { registerErrorHandling } from './http/error-response.js';
import { documentErrors } from './http/error-schemas.js';
import { answerLargeBodies } from './http/large-body.js';
import { lazyRequestLogger } from './http/lazy-request-logger.js';
import { registerDocsPage, registerOpenApi } from './http/openapi.js';
import { logRequests } from './http/request-log.js';
import { countRequests } from './http/request-metrics.js';
import { api, probes, wellKnown } from './http/scopes.js';
import { securityHeaders } from './http/security-headers.js';
import type { HttpServices } from './http/services.js';
import { gateUntilStarted } from './http/start-gate.js';
import { refuseUnknownQueries } from './http/strict-query.js';
import type { TesseraApp } from './http/tessera-app.js';

export type { TesseraApp } from './http/tessera-app.js';

export interface AppOptions {
  loggerInstance?: FastifyServerOptions['loggerInstance'];
  https?: { key: string | Buffer; cert: string | Buffer } | null;
  /** Whether the process has started serving (store open, first admin made); until then 503 `starting`. */
  started?: () => boolean;
}

/** Builds the HTTP app around an opened Tessera (its services), without listening: tests use app.inject. */
export function buildApp(services: HttpServices, options: AppOptions = {}): TesseraApp {
  const app = Fastify({
    ...(options.loggerInstance ? { loggerInstance: options.loggerInstance } : { logger: false }),
    // TLS asks every client for a certificate and requires none: certificate users present one,
    // password and token clients go on as before (the chain is checked per request, auth/certs).
    ...(options.https
      ? { https: { ...options.https, requestCert: true, rejectUnauthorized: false, ...SERVER_OPTIONS } }
      : { http: SERVER_OPTIONS }),
    // Behind proxies named by --trusted-proxy, the client is who they say it is (X-Forwarded-For,
    // read hop by hop from the right, trusting only those addresses); nobody's header otherwise.
    ...(services.config.mtls.trustedProxies.length > 0 && { trustProxy: [...services.config.mtls.trustedProxies] }),
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError,
    bodyLimit: services.config.bodyLimitBytes,
    // Types are what the client sent ("600" is not a ttl), and unknown names in a strict
    // schema (the policy) are an error, not silently dropped.
    // `verbose` lets an unknown field's message list the known ones (validation-message.ts).
    // `x-examples` is for the OpenAPI document (named examples), not a validation keyword.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, verbose: true, keywords: ['x-examples'] } },
    return503OnClosing: true,
    childLoggerFactory: lazyRequestLogger,
    logController: new LogController({ disableRequestLogging: true }), // one line a request instead, below
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as TesseraApp;
  app.decorate('services', services);
  // Shared by every scope: one error shape (also for what no route takes), the answers
  // before any route runs, one log line a request.
  registerErrorHandling(app);
  securityHeaders(app, Boolean(options.https));
  answerMissingHostAndExpect(app);
  answerLargeBodies(app, services.config.bodyLimitBytes);
  if (options.started) gateUntilStarted(app, options.started);
  logRequests(app);
  countRequests(app, services.metrics);
  registerOpenApi(app, services.config); // before the routes it describes
  refuseUnknownQueries(app);
  documentErrors(app);
  app.register(api);
  app.register(wellKnown);
  app.register(probes);
  registerDocsPage(app);
  app.register(consoleScope);
  return app;
}
