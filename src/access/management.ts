/**
 * The management levels of the product, each a set of permissions (access/permissions.ts).
 * `token_verifier` is Tessera's: for services that read the revocation feed and introspect tokens.
 */
export const ROLES = [
  'admin',
  'user_manager',
  'cluster_member',
  'cluster_viewer',
  'db_member',
  'db_viewer',
  /** For services: may read the revocation feed and introspect tokens, nothing else. */
  'token_verifier',
  'none',
] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/**
 * Management levels from most to least: a user's `role` is the first of its rights in this
 * order. Rights themselves are the union of the levels' permissions (access/permissions.ts),
 * so the order decides only which level is shown.
 */
const RANK: readonly Role[] = [
  'admin',
  'user_manager',
  'cluster_member',
  'cluster_viewer',
  'db_member',
  'db_viewer',
  'token_verifier',
  'none',
];

/** The levels a user holds through its roles, highest first; 'none' only when alone (or with no role). */
export function rightsFrom(levels: readonly Role[]): Role[] {
  const held = new Set<Role>(['none', ...levels]);
  if (held.size > 1) held.delete('none');
  return RANK.filter((r) => held.has(r));
}

export function highest(rights: readonly Role[]): Role {
  return rights[0] ?? 'none';
}

/** The order of ROLES and RANK must name the same levels; checked once at load. */
if (RANK.length !== ROLES.length || !ROLES.every((r) => RANK.includes(r)))
  throw new Error('management ranks out of date');
