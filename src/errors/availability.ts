import { DomainError, RetryLaterError } from './domain-error.js';

export class TryAgainError extends RetryLaterError {
  constructor(message = 'The service is busy; try again shortly', retryAfterSeconds = 1) {
    super('try_again', message, retryAfterSeconds);
  }
}

export class StoreUnavailableError extends RetryLaterError {
  /** `reason`: what the driver said, for the log only. */
  constructor(readonly reason?: unknown) {
    super('store_unavailable', 'The user store cannot be reached; try again shortly', 2);
  }
}

export class GuardUnavailableError extends RetryLaterError {
  constructor() {
    super('guard_unavailable', 'Logins are paused while the lockout counters cannot be reached; try again shortly', 2);
  }
}

export class NotReadyError extends RetryLaterError {
  constructor(message: string) {
    super('not_ready', message, 2);
  }
}

/** The store's tokens moved to another issuer, and the move's overlap ended: this node's no longer count. */
export class IssuerMovedError extends DomainError {
  constructor(mine: string, current: string) {
    super(
      'issuer_moved',
      `This node issues tokens as ${mine}, which the cluster no longer accepts: it moved to ${current}. Log in through another node; its operator restarts it with --public-url ${current}`,
    );
  }
}

/** The process listens but is not serving yet: the store, its migrations or the first admin are not done. */
export class StartingError extends RetryLaterError {
  constructor() {
    super('starting', 'Tessera is starting; try again in a second', 1);
  }
}
