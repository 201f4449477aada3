import { callerOf } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { CALLER, Ok } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

/** POST /v1/users/logout: revokes the presented token on every route and on refresh. */
export function logoutRoute(app: TesseraApp, { logins }: Pick<HttpServices, 'logins'>): void {
  app.post(
    '/v1/users/logout',
    {
      config: { access: 'token', enrolment: true, endsAccess: true },
      schema: {
        tags: ['tokens'],
        summary: 'End the presented token',
        security: CALLER.slice(0, 2),
        response: { 200: Ok },
      },
    },
    async (request) => {
      await logins.logout(callerOf(request), contextOf(request));
      return {};
    },
  );
}
