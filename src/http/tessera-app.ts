import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { HttpServices } from './services.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The use cases the routes and hooks of this app use. */
    services: HttpServices;
  }
}

/** The Fastify instance (or scope) every route is added to: typed bodies, `app.services`. */
// biome-ignore lint/suspicious/noExplicitAny: any server type (HTTP, HTTPS, injected), any logger
export type TesseraApp = FastifyInstance<any, any, any, any, TypeBoxTypeProvider>;
