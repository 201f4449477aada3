/**
 * The roles every cluster starts with (store migration 0002 makes them: one per management
 * level, uids 1..8). They are not deleted, renamed or given another level: clients of the
 * product, LDAP mappings and SSO assertions name them by uid, and a user's `role` written as a
 * level means the built-in role of that level. No imports: the web console reads this from here too.
 */
export const BUILT_IN_ROLE_UIDS: readonly number[] = [1, 2, 3, 4, 5, 6, 7, 8];

export const isBuiltInRole = (uid: number): boolean => BUILT_IN_ROLE_UIDS.includes(uid);

/** The built-in role of each management level. */
export const BUILT_IN_ROLE_OF_LEVEL = {
  admin: 1,
  cluster_member: 2,
  cluster_viewer: 3,
  db_member: 4,
  db_viewer: 5,
  none: 6,
  user_manager: 7,
  token_verifier: 8,
} as const;
