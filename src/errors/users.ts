import { DomainError } from './domain-error.js';

export class UserNotFoundError extends DomainError {
  constructor() {
    super('user_not_found', 'No such user');
  }
}

export class UserNotExistError extends DomainError {
  constructor() {
    super('user_not_exist', 'No such user');
  }
}

export class UserAlreadyExistsError extends DomainError {
  constructor(
    code: 'name_already_exists' | 'email_already_exists' | 'uid_already_exists' = 'name_already_exists',
    message = 'A user with this name already exists',
  ) {
    super(code, message);
  }
}

export class EmailAlreadyExistsError extends UserAlreadyExistsError {
  constructor() {
    super('email_already_exists', 'A user with this email already exists');
  }
}
