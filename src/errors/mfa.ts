import { DomainError } from './domain-error.js';

/** What the first step of a login answers a user with a second factor: how to take the second. */
export interface MfaChallengeBody {
  mfa_token: string;
  methods: ('totp' | 'webauthn' | 'recovery_code')[];
  /** WebAuthn's request options, when the user has a passkey. */
  webauthn?: unknown;
}

/**
 * A second factor is needed: at a login (with the challenge of its second step), or for Basic
 * credentials of a user who has one — a password alone never acts for such a user.
 */
export class MfaRequiredError extends DomainError {
  constructor(
    message: string,
    readonly challenge?: MfaChallengeBody,
  ) {
    super('mfa_required', message);
  }
}

/** The caller's role requires a second factor and it has none: it may only enrol one. */
export class MfaEnrolmentRequiredError extends DomainError {
  constructor(
    message = 'A role of this user requires a second factor: enrol one (POST /v1/users/{uid}/mfa/totp or …/webauthn), then log in again',
  ) {
    super('mfa_enrolment_required', message);
  }
}

/** A wrong second factor at a login (a code, a recovery code, a passkey's answer). */
export class InvalidMfaCodeError extends DomainError {
  constructor(message = 'The code is not right: type the current code of your authenticator app, or a recovery code') {
    super('invalid_mfa_code', message);
  }
}

/** An mfa_token that is unknown, used, expired, given to another client or tried too often. */
export class InvalidMfaTokenError extends DomainError {
  constructor() {
    super(
      'invalid_mfa_token',
      'This mfa_token is not valid (expired after 5 minutes, used, or tried too often): log in with your password again',
    );
  }
}

/** An enrolment that did not prove the factor (a wrong first code, a passkey's answer that does not verify). */
export class InvalidMfaResponseError extends DomainError {
  constructor(message: string) {
    super('invalid_mfa_response', message);
  }
}

/** A change of the user's own factors needs a second factor proven recently. */
export class MfaFreshRequiredError extends DomainError {
  constructor() {
    super(
      'mfa_fresh_required',
      'Changing your second factors needs one proven in the last 15 minutes: log in again with your second factor',
    );
  }
}

export class MfaFactorNotFoundError extends DomainError {
  constructor() {
    super('mfa_factor_not_found', 'No second factor of this user has this factor_id');
  }
}

export class TooManyMfaFactorsError extends DomainError {
  constructor(max: number) {
    super('too_many_mfa_factors', `A user has at most ${max} second factors: remove one first`);
  }
}
