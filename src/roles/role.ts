import type { Role as Management } from '../access/management.js';
import type { ResourceScope } from '../access/resource-scopes.js';

/** A role (the product's role object): a name, the management level it grants, and the databases it is limited to. */
export interface Role {
  uid: number;
  name: string;
  management: Management;
  /** Scopes that limit a db_member or db_viewer role (the product's `resources`, 8.2); [] for every database. */
  resources: ResourceScope[];
  /** A holder must have a second factor (Tessera's field; false for every role by default). */
  mfaRequired: boolean;
}

export const ROLE_NAME_MAX_LENGTH = 256;

/** The role object of the API: `resources` only when the role has some (absent: every database, as the product reads it). */
export function toRoleView(role: Role): Omit<Role, 'resources' | 'mfaRequired'> & {
  resources?: ResourceScope[];
  mfa_required?: true;
} {
  const { resources, mfaRequired, ...rest } = role;
  // Tessera's field, said where it is on (absent: off, as on every role of the product).
  return { ...rest, ...(resources.length > 0 && { resources }), ...(mfaRequired && { mfa_required: true as const }) };
}
