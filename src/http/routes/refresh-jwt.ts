import { TTL_DEFAULT_SECONDS } from '../../tokens/claims.js';
import { callerOf } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { AccessToken, CALLER, TtlBody } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

/** POST /v1/users/refresh_jwt: a valid token in, a new one out. */
export function refreshJwtRoute(app: TesseraApp, { logins }: Pick<HttpServices, 'logins'>): void {
  app.post(
    '/v1/users/refresh_jwt',
    {
      config: {
        access: 'token',
        signIn: true,
        errors: [
          'mfa_enrolment_required',
          'mfa_required',
          'account_locked',
          'password_expired',
          'session_expired',
          'store_unavailable',
          'directory_unavailable',
          'issuer_moved',
        ],
      },
      schema: {
        tags: ['tokens'],
        summary: 'A valid token in, a new one out',
        security: CALLER.slice(0, 2),
        body: TtlBody,
        response: { 200: AccessToken },
      },
    },
    async (request) => {
      const token = await logins.refresh(
        callerOf(request),
        request.body.ttl ?? TTL_DEFAULT_SECONDS,
        contextOf(request),
      );
      return { access_token: token };
    },
  );
}
