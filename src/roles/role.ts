import type { Role as Management } from '../access/management.js';

/** A role (the product's role object): a name and the management level it grants. */
export interface Role {
  uid: number;
  name: string;
  management: Management;
}

export const ROLE_NAME_MAX_LENGTH = 256;
