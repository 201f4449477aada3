import Type from 'typebox';
import type { TesseraApp } from '../tessera-app.js';
import { permissionsByLevel } from '../../access/permissions.js';
import { CALLER } from '../schemas.js';

/** GET /v1/users/permissions: the permissions of each management level — the table every route's check uses. */
export function usersPermissionsRoute(app: TesseraApp): void {
  const table = permissionsByLevel();
  app.get(
    '/v1/users/permissions',
    {
      config: { access: 'caller' },
      schema: {
        tags: ['users'],
        summary: 'The permissions of each management level (anyone signed in)',
        security: CALLER,
        response: { 200: Type.Record(Type.String(), Type.Array(Type.String())) },
      },
    },
    async () => table,
  );
}
