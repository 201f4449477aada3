import { DomainError } from './domain-error.js';

export class RoleNotFoundError extends DomainError {
  constructor() {
    super('role_not_found', 'No such role');
  }
}

export class RoleInUseError extends DomainError {
  constructor(holders: number, what = 'user') {
    super('role_in_use', `The role is given to ${holders} ${what}${holders === 1 ? '' : 's'}; take it from them first`);
  }
}

/** DELETE of one of the roles every cluster starts with (uids 1..8): clients and mappings count on them. */
export class BuiltInRoleError extends DomainError {
  constructor(name: string) {
    super(
      'delete_builtin_role_not_allowed',
      `"${name}" is a built-in role: it is never deleted (make a role of your own to delete later)`,
    );
  }
}

/** A built-in role keeps its name and level: users, mappings and assertions name it by uid for that level. */
export class BuiltInRoleChangeError extends DomainError {
  constructor(name: string) {
    super(
      'update_builtin_role_not_allowed',
      `"${name}" is a built-in role: its name, management and resources do not change (make a role of your own with the name, level or databases you want)`,
    );
  }
}

export class LastAdminError extends DomainError {
  constructor(code: 'change_last_admin_role_not_allowed' | 'delete_last_admin_not_allowed') {
    super(code, 'The cluster must keep at least one admin');
  }
}
