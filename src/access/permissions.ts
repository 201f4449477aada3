import { ROLES, type Role } from './management.js';

/**
 * The one table of who may do what: each permission (the product's names, and Tessera's own
 * for its key ring and token verification) and the management levels that hold it. Every
 * route declares the permission it needs from here; GET /v1/users/permissions serves it.
 */
export const PERMISSIONS = {
  view_all_users_info: ['admin', 'user_manager'],
  view_user_info: ['admin', 'user_manager'],
  create_new_user: ['admin', 'user_manager'],
  update_user: ['admin', 'user_manager'],
  delete_user: ['admin', 'user_manager'],
  view_all_roles_info: ['admin', 'user_manager', 'cluster_member', 'cluster_viewer', 'db_member', 'db_viewer'],
  view_role_info: ['admin', 'user_manager', 'cluster_member', 'cluster_viewer', 'db_member', 'db_viewer'],
  create_role: ['admin', 'user_manager'],
  update_role: ['admin', 'user_manager'],
  delete_role: ['admin', 'user_manager'],
  view_cluster_info: ['admin', 'user_manager', 'cluster_member', 'cluster_viewer', 'db_member', 'db_viewer'],
  update_cluster: ['admin'],
  /**
   * GET /metrics of the management listener when the cluster sets metrics_auth: the product's
   * permission (its 8.0.2 release notes name admin, cluster_member and cluster_viewer), not
   * view_cluster_stats, which every level holds.
   */
  view_all_metrics: ['admin', 'cluster_member', 'cluster_viewer'],
  /** LDAP as the product's table (7.8+) gives it (bind_pass masked), but for config_ldap. */
  view_ldap_config: ['admin', 'user_manager'],
  /**
   * The directory itself (PUT/DELETE /v1/cluster/ldap): admin only, where the product's table
   * also names user_manager. Whoever sets it chooses the server whose answers prove every
   * directory login and whose groups the mappings read, admins' included: more than managing users.
   */
  config_ldap: ['admin'],
  view_all_ldap_mappings_info: ['admin', 'user_manager'],
  view_ldap_mapping_info: ['admin', 'user_manager'],
  /** A user_manager's mappings give what it may grant a user, never admin rights (ldap/ldap-mapping-service.ts). */
  create_ldap_mapping: ['admin', 'user_manager'],
  update_ldap_mapping: ['admin', 'user_manager'],
  delete_ldap_mapping: ['admin', 'user_manager'],
  /**
   * SSO (8.0.6+), as the product's permissions table gives them (its SSO requests page says
   * user_manager may also configure; the table, corrected later, says admin only).
   */
  view_sso: ['admin', 'user_manager', 'cluster_member', 'cluster_viewer', 'db_member', 'db_viewer'],
  config_sso: ['admin'],
  /** The event log (GET /v1/logs), as the product's permissions table gives it: not db_viewer. */
  view_logged_events: ['admin', 'user_manager', 'cluster_member', 'cluster_viewer', 'db_member'],
  /**
   * Tessera's: another user's passwords through /v1/users/password (add, replace, delete), as
   * the product allows only admins ("you can only rotate passwords for your account"); a
   * user_manager sets a user's password with PUT /v1/users/{uid} (update_user).
   */
  update_users_passwords: ['admin'],
  /** Tessera's: the signing keys (GET /v1/keys, POST /v1/keys/rotate). */
  view_signing_keys: ['admin'],
  rotate_signing_keys: ['admin'],
  /** Tessera's: every session of the cluster ended at once (DELETE /v1/sessions), the worst day's button. */
  end_all_sessions: ['admin'],
  /** Tessera's: the revocation feed and introspection, for services that verify tokens. */
  verify_tokens: ['admin', 'token_verifier'],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

export function isPermission(name: string): name is Permission {
  return Object.hasOwn(PERMISSIONS, name);
}

/** Whether any of these management levels holds the permission. */
export function holds(rights: readonly Role[], permission: Permission): boolean {
  const allowed: readonly Role[] = PERMISSIONS[permission];
  return rights.some((r) => allowed.includes(r));
}

/**
 * What each management level sees of the web console (the product's `ui_permissions`, here
 * Tessera's own pages): the console shows a page to whoever holds its entry.
 */
export const UI_PERMISSIONS = {
  view_users_page: ['admin', 'user_manager'],
  view_roles_page: ['admin', 'user_manager'],
  view_policy_page: ['admin'],
  view_ldap_page: ['admin'],
  view_sso_page: ['admin'],
  view_keys_page: ['admin'],
  view_events_page: ['admin', 'user_manager', 'cluster_member', 'cluster_viewer', 'db_member'],
  change_own_password: [
    'admin',
    'user_manager',
    'cluster_member',
    'cluster_viewer',
    'db_member',
    'db_viewer',
    'token_verifier',
    'none',
  ],
} as const satisfies Record<string, readonly Role[]>;

/** A management level's permissions in the product's shape (GET /v1/users/permissions). */
export function permissionsOf(level: Role): { api_permissions: Permission[]; ui_permissions: string[] } {
  return {
    api_permissions: (Object.entries(PERMISSIONS) as [Permission, readonly Role[]][])
      .filter(([, levels]) => levels.includes(level))
      .map(([p]) => p),
    ui_permissions: (Object.entries(UI_PERMISSIONS) as [string, readonly Role[]][])
      .filter(([, levels]) => levels.includes(level))
      .map(([p]) => p),
  };
}

/** The table by management level: what every route's check uses. */
export function permissionsByLevel(): Record<Role, Permission[]> {
  const table = Object.fromEntries(ROLES.map((r) => [r, [] as Permission[]])) as Record<Role, Permission[]>;
  for (const [permission, levels] of Object.entries(PERMISSIONS) as [Permission, readonly Role[]][]) {
    for (const level of levels) table[level].push(permission);
  }
  return table;
}
