import type { Role as Management } from '../access/management.js';
import type { ResourceScope } from '../access/resource-scopes.js';

/** A role (the product's role object): a name, the management level it grants, and the databases it is limited to. */
export interface Role {
  uid: number;
  name: string;
  management: Management;
  /** Scopes that limit a db_member or db_viewer role (the product's `resources`, 8.2); [] for every database. */
  resources: ResourceScope[];
}

export const ROLE_NAME_MAX_LENGTH = 256;

/** The role object of the API: `resources` only when the role has some (absent: every database, as the product reads it). */
export function toRoleView(role: Role): Omit<Role, 'resources'> & { resources?: ResourceScope[] } {
  const { resources, ...rest } = role;
  return resources.length > 0 ? { ...rest, resources } : rest;
}
