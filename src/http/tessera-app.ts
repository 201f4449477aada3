import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Tessera } from '../tessera.js';

declare module 'fastify' {
  interface FastifyInstance {
    tessera: Tessera;
  }
}

/** The Fastify instance (or scope) every route is added to: typed bodies, `app.tessera`. */
export type TesseraApp = FastifyInstance<any, any, any, any, TypeBoxTypeProvider>;
