import { DomainError, RetryLaterError } from './domain-error.js';

/** No credentials at all were presented. */
export class MissingCredentialsError extends DomainError {
  constructor(message = 'Credentials are required') {
    super('missing_credentials', message);
  }
}

/** Unknown user, wrong password or a user that may not log in: one shape for all. */
export class InvalidCredentialsError extends DomainError {
  /** `auditReason`: why, for the audit line only (the client is told the same for every case). */
  constructor(readonly auditReason?: string) {
    super('invalid_credentials', 'Invalid username or password');
  }
}

export class PasswordExpiredError extends DomainError {
  constructor() {
    super(
      'password_expired',
      'The password has expired: set a new one with PUT /v1/users/password {"username", "old_password", "new_password"} (no token needed), or `tessera passwd`',
    );
  }
}

export class InvalidTokenError extends DomainError {
  constructor(message = 'The token is invalid or has expired') {
    super('invalid_token', message);
  }
}

/** An invalid token that was good until its exp (told apart for metrics only). */
export class TokenExpiredError extends InvalidTokenError {
  constructor() {
    super('The token has expired');
  }
}

export class AccountLockedError extends RetryLaterError {
  /** `unlocksInSeconds`: undefined when only an admin can lift the lock. */
  constructor(unlocksInSeconds?: number) {
    super(
      'account_locked',
      unlocksInSeconds === undefined
        ? 'The account is locked after too many failed logins, until an admin unlocks it'
        : `The account is locked after too many failed logins; it unlocks in ${unlocksInSeconds} s, or an admin can unlock it now`,
      unlocksInSeconds,
    );
  }
}

export class TooManyRequestsError extends RetryLaterError {
  constructor(retryAfterSeconds: number) {
    super('too_many_requests', 'Too many login attempts from this address; try again later', retryAfterSeconds);
  }
}

/** Basic credentials on a route other than the login, while the cluster turned them off. */
export class BasicAuthDisabledError extends DomainError {
  constructor() {
    super(
      'basic_auth_disabled',
      'Basic credentials are accepted only by POST /v1/users/authorize on this cluster: present a token',
    );
  }
}
