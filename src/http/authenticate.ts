import type { FastifyRequest } from 'fastify';
import type { AuthService, Principal } from '../auth/auth-service.js';
import { decodeBasicCredentials, splitAuthorization } from '../auth/credentials.js';
import { ForbiddenError, MissingCredentialsError } from '../errors.js';
import type { Role } from '../users/user.js';

/**
 * Who is calling: a token as "JWT <t>" (the product's scheme) or "Bearer <t>" (RFC 6750),
 * any case, or Basic credentials where allowed.
 */
export async function principalOf(
  request: FastifyRequest,
  auth: AuthService,
  allowBasic: boolean,
): Promise<Principal> {
  const header = request.headers.authorization;
  if (!header) throw new MissingCredentialsError();
  const { scheme, value } = splitAuthorization(header);
  if ((scheme === 'jwt' || scheme === 'bearer') && value) return auth.checkToken(value);
  if (scheme === 'basic' && allowBasic) {
    const user = await auth.checkPassword(decodeBasicCredentials(value));
    return { uid: user.uid, username: user.username, role: user.role };
  }
  throw new MissingCredentialsError(
    `Present a token as "Authorization: JWT <token>" or "Bearer <token>"${allowBasic ? ', or Basic credentials' : ''}`,
  );
}

export function requireRole(principal: Principal, roles: readonly Role[]): void {
  if (!roles.includes(principal.role)) throw new ForbiddenError();
}

/** Roles that may read and manage every user. */
export const USER_ADMIN_ROLES: readonly Role[] = ['admin', 'user_manager'];
