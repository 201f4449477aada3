/**
 * The roles every cluster starts with (store migration 0002 makes them: one per management
 * level, uids 1..8). They are not deleted: clients of the product, LDAP mappings and SSO
 * assertions name them by uid. Their name and management may change, as the product allows.
 * No imports: the web console reads this rule from here too.
 */
export const BUILT_IN_ROLE_UIDS: readonly number[] = [1, 2, 3, 4, 5, 6, 7, 8];

export const isBuiltInRole = (uid: number): boolean => BUILT_IN_ROLE_UIDS.includes(uid);
