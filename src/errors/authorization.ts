import { DomainError } from './domain-error.js';

export class ForbiddenError extends DomainError {
  constructor(message = 'Your role does not allow this action') {
    super('forbidden', message);
  }
}

/** Ambient credentials (Basic, a client certificate) on a state-changing request from a page of another site. */
export class CrossSiteRequestError extends DomainError {
  constructor() {
    super(
      'cross_site_request',
      'A page of another site may not act with credentials the browser sends by itself (Basic, a client certificate): send a token instead',
    );
  }
}

export class UnauthorizedActionError extends DomainError {
  constructor(message = 'You may not do this to this user') {
    super('unauthorized_action', message);
  }
}
