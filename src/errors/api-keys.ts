import { DomainError } from './domain-error.js';

/** A refused API key: one that is no key of this cluster (or not of the user named beside it), expired, or from an address it is not taken from. */
export class ApiKeyRefusedError extends DomainError {
  constructor(
    code: 'invalid_api_key' | 'api_key_expired' | 'api_key_address_refused',
    message: string,
    /** Why, for the audit line only. */
    readonly auditReason?: string,
  ) {
    super(code, message);
  }
}

export class ApiKeyNotFoundError extends DomainError {
  constructor() {
    super('api_key_not_found', 'No API key of this user has this key_id');
  }
}

/** A user has MAX_KEYS_PER_USER keys: one must be revoked first. */
export class TooManyApiKeysError extends DomainError {
  constructor(max: number) {
    super(
      'too_many_api_keys',
      `A user has at most ${max} API keys: revoke one first (DELETE /v1/users/{uid}/api_keys/{key_id})`,
    );
  }
}
