import Type from 'typebox';
import { OPENAPI_PATH } from '../openapi.js';
import { ANYONE } from '../schemas.js';
import type { TesseraApp } from '../tessera-app.js';

/** GET /v1/openapi.json: this API described (OpenAPI 3.1), generated from the routes' schemas. */
export function openApiDocumentRoute(app: TesseraApp): void {
  const schema = {
    tags: ['operations'],
    summary: 'This document (OpenAPI 3.1)',
    security: ANYONE,
    response: { 200: Type.Object({ openapi: Type.String() }, { additionalProperties: true }) },
  };
  app.get(
    OPENAPI_PATH,
    { config: { access: 'public' }, schema },
    async () => app.swagger() as unknown as { openapi: string },
  );
}
