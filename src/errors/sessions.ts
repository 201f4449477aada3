import { DomainError } from './domain-error.js';

export class SessionNotFoundError extends DomainError {
  constructor() {
    super('session_not_found', 'No such session of this user (it may have ended)');
  }
}

/** A session past its absolute lifetime (session_max_lifetime_minutes): refresh_jwt issues no more of its tokens. */
export class SessionExpiredError extends DomainError {
  constructor() {
    super('session_expired', 'This session reached its lifetime (session_max_lifetime_minutes): log in again');
  }
}
