import type { Role as Management } from '../access/management.js';
import type { ResourceScope } from '../access/resource-scopes.js';
import type { Role } from './role.js';

/** Who may change a role, asked again of the role as the store has it, in the transaction that changes it. */
export type RoleGuard = (current: Role) => void;

/** What a change of a role sets (what is absent stays). */
export interface RoleChanges {
  name?: string;
  management?: Management;
  /** [] clears them. */
  resources?: readonly ResourceScope[];
  mfaRequired?: boolean;
}

/** Roles; names are unique with their case. */
export interface RoleStore {
  list(): Promise<Role[]>;
  get(uid: number): Promise<Role | undefined>;
  /** A new role; `uid` chosen by the caller (the product's, 8.0) or the next one. Name or uid taken: 409. */
  create(role: {
    name: string;
    management: Management;
    uid?: number;
    resources?: readonly ResourceScope[];
    mfaRequired?: boolean;
  }): Promise<Role>;
  /**
   * Throws UserAlreadyExistsError(name_already_exists) when the name is taken; answers whether
   * what the role grants changed (its management or its resources): its holders' tokens end.
   */
  update(uid: number, changes: RoleChanges, guard?: RoleGuard): Promise<boolean>;
  /**
   * Throws RoleInUseError when a local user or an LDAP mapping has the role (checked in the
   * same transaction); returns the directory users that held it (their tokens must end).
   * `dryRun`: every check, nothing deleted.
   */
  delete(uid: number, guard?: RoleGuard, dryRun?: boolean): Promise<number[]>;
  /** How many users hold the role. */
  holders(uid: number): Promise<number>;
  /** Whether a role other than `exceptUid` has this name (regardless of case). */
  nameTaken(name: string, exceptUid?: number): Promise<boolean>;
}
