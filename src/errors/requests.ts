import { DomainError } from './domain-error.js';

export class InvalidRequestError extends DomainError {
  constructor(message: string, code: 'invalid_request' | 'malformed_authorization_header' = 'invalid_request') {
    super(code, message);
  }
}

export class MethodNotAllowedError extends DomainError {
  constructor(allow: string) {
    super('method_not_allowed', `This path takes ${allow}`);
  }
}
