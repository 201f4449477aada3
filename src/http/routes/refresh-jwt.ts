import { splitAuthorization } from '../../auth/credentials.js';
import { MissingCredentialsError } from '../../errors.js';
import { TTL_DEFAULT_SECONDS } from '../../tokens/claims.js';
import type { TesseraApp } from '../tessera-app.js';
import { contextOf } from '../request-context.js';
import { AccessToken, CALLER, ERROR_RESPONSES, TtlBody } from '../schemas.js';

/** POST /v1/users/refresh_jwt: a valid token in, a new one out. */
export function refreshJwtRoute(app: TesseraApp): void {
  const { auth } = app.tessera;
  app.post(
    '/v1/users/refresh_jwt',
    {
      schema: {
        tags: ['tokens'],
        summary: 'A valid token in, a new one out',
        security: CALLER.slice(0, 2),
        body: TtlBody,
        response: { 200: AccessToken, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const { scheme, value } = splitAuthorization(request.headers.authorization ?? '');
      if ((scheme !== 'jwt' && scheme !== 'bearer') || !value) {
        throw new MissingCredentialsError('Present the token as "Authorization: JWT <token>" or "Bearer <token>"');
      }
      const token = await auth.refresh(value, request.body.ttl ?? TTL_DEFAULT_SECONDS, contextOf(request));
      reply.header('cache-control', 'no-store');
      return { access_token: token };
    },
  );
}
