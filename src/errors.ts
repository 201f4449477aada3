/**
 * Domain errors carry a stable machine-readable code and a human message that is safe to
 * show to the client. Which HTTP status a code gets is decided in one place only:
 * `http/error-response.ts`.
 */
export class DomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class InvalidRequestError extends DomainError {
  constructor(message: string, code = 'invalid_request') {
    super(code, message);
  }
}

/** No credentials at all were presented. */
export class MissingCredentialsError extends DomainError {
  constructor(message = 'Credentials are required') {
    super('missing_credentials', message);
  }
}

/** Unknown user, wrong password or a user that may not log in: one shape for all. */
export class InvalidCredentialsError extends DomainError {
  constructor() {
    super('invalid_credentials', 'Invalid username or password');
  }
}

export class PasswordExpiredError extends DomainError {
  constructor() {
    super('password_expired', 'The password has expired and must be changed');
  }
}

export class InvalidTokenError extends DomainError {
  constructor(message = 'The token is invalid or has expired') {
    super('invalid_token', message);
  }
}

export class ForbiddenError extends DomainError {
  constructor(message = 'Your role does not allow this action') {
    super('forbidden', message);
  }
}

export class UserNotFoundError extends DomainError {
  constructor() {
    super('user_not_found', 'No such user');
  }
}

export class UserAlreadyExistsError extends DomainError {
  constructor() {
    super('name_already_exists', 'A user with this username already exists');
  }
}
