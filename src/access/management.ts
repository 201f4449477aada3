import { ROLES, type Role } from '../users/user.js';

/**
 * Management levels from most to least: a user's `role` is the first of its rights in this
 * order. Rights themselves are the union of the levels' permissions (access/permissions.ts),
 * so the order decides only which level is shown.
 */
const RANK: readonly Role[] = ['admin', 'user_manager', 'cluster_member', 'cluster_viewer', 'db_member', 'db_viewer', 'token_verifier', 'none'];

/** The levels a user holds through its own role and its roles, highest first; 'none' only when alone. */
export function rightsFrom(own: Role, fromRoles: readonly Role[]): Role[] {
  const held = new Set<Role>([own, ...fromRoles]);
  if (held.size > 1) held.delete('none');
  return RANK.filter((r) => held.has(r));
}

export function highest(rights: readonly Role[]): Role {
  return rights[0] ?? 'none';
}

/** The order of ROLES and RANK must name the same levels; checked once at load. */
if (RANK.length !== ROLES.length || !ROLES.every((r) => RANK.includes(r))) throw new Error('management ranks out of date');
