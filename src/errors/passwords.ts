import { DomainError } from './domain-error.js';

export class PasswordNotComplexError extends DomainError {
  constructor(message: string) {
    super('password_not_complex', message);
  }
}

export class NewPasswordSameAsCurrentError extends DomainError {
  constructor() {
    super('new_password_same_as_current', 'The new password is one the user already has');
  }
}

export class CannotDeleteLastPasswordError extends DomainError {
  constructor() {
    super('cannot_delete_last_password', 'A user keeps at least one password');
  }
}

export class TooManyPasswordsError extends DomainError {
  constructor(max: number) {
    super('too_many_passwords', `A user has at most ${max} passwords; delete one first`);
  }
}
