import type { Role as Management } from '../access/management.js';
import type { Role } from './role.js';

/** Roles; names are unique regardless of case. */
/** Who may change a role, asked again of the role as the store has it, in the transaction that changes it. */
export type RoleGuard = (current: Role) => void;

export interface RoleStore {
  list(): Promise<Role[]>;
  get(uid: number): Promise<Role | undefined>;
  /** Throws UserAlreadyExistsError(name_already_exists) when the name is taken. */
  /** A new role; `uid` chosen by the caller (the product's, 8.0) or the next one. Name or uid taken: 409. */
  create(role: { name: string; management: Management; uid?: number }): Promise<Role>;
  /** Throws UserAlreadyExistsError(name_already_exists) when the name is taken; whether the management changed. */
  update(uid: number, changes: { name?: string; management?: Management }, guard?: RoleGuard): Promise<boolean>;
  /**
   * Throws RoleInUseError when a local user or an LDAP mapping has the role (checked in the
   * same transaction); returns the directory users that held it (their tokens must end).
   */
  delete(uid: number, guard?: RoleGuard): Promise<number[]>;
  /** How many users hold the role. */
  holders(uid: number): Promise<number>;
  /** Whether a role other than `exceptUid` has this name (regardless of case). */
  nameTaken(name: string, exceptUid?: number): Promise<boolean>;
}
