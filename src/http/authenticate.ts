import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.js';
import { decodeBasicCredentials, splitAuthorization } from '../auth/credentials.js';
import { ForbiddenError, MissingCredentialsError } from '../errors.js';
import type { Tessera } from '../tessera.js';
import type { Role } from '../users/user.js';
import { contextOf } from './request-context.js';

/**
 * Who is calling: a token as "JWT <t>" (the product's scheme) or "Bearer <t>" (RFC 6750),
 * any case, or Basic credentials where allowed (they go through throttling and lockout
 * like any login).
 */
export async function principalOf(request: FastifyRequest, tessera: Tessera): Promise<Principal> {
  const header = request.headers.authorization;
  if (!header) throw new MissingCredentialsError();
  const allowBasic = tessera.config.basicAuthOnProtectedRoutes;
  const { scheme, value } = splitAuthorization(header);
  if ((scheme === 'jwt' || scheme === 'bearer') && value) return tessera.auth.checkToken(value);
  if (scheme === 'basic' && allowBasic) {
    const { user } = await tessera.auth.checkPassword(decodeBasicCredentials(value), contextOf(request));
    return { uid: user.uid, username: user.username, role: user.role };
  }
  throw new MissingCredentialsError(
    `Present a token as "Authorization: JWT <token>" or "Bearer <token>"${allowBasic ? ', or Basic credentials' : ''}`,
  );
}

export function requireRole(principal: Principal, roles: readonly Role[]): Principal {
  if (!roles.includes(principal.role)) throw new ForbiddenError();
  return principal;
}

/** The caller, who must hold one of `roles`. */
export async function principalWithRole(request: FastifyRequest, tessera: Tessera, roles: readonly Role[]) {
  return requireRole(await principalOf(request, tessera), roles);
}

/** Roles that may read and manage users. */
export const USER_ADMIN_ROLES: readonly Role[] = ['admin', 'user_manager'];
export const ADMIN_ONLY: readonly Role[] = ['admin'];
