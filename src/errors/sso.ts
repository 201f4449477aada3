import { DomainError } from './domain-error.js';

/** /v1/cluster/sso: what turning SSO on needs, or IdP metadata that cannot be taken. */
export class SsoConfigError extends DomainError {
  constructor(
    code: 'missing_param' | 'missing_certificate' | 'saml_metadata_parsing_error' | 'saml_metadata_validation_error',
    message: string,
  ) {
    super(code, message);
  }
}

/** A password asked of (or given to) a user who signs in through the identity provider. */
export class SsoUserError extends DomainError {
  constructor(message = 'This user signs in with SSO, through the identity provider: it has no password') {
    super('sso_user', message);
  }
}

/** A password login of a user who is not an admin while the cluster enforces SSO. */
export class SsoRequiredError extends DomainError {
  constructor() {
    super(
      'sso_required',
      'This cluster requires users who are not admins to sign in with SSO, through the identity provider',
    );
  }
}

/**
 * An SSO sign-in refused: an answer of the identity provider that does not prove who it is
 * for (`sso_refused`; why goes to the audit line only), or a person the cluster has no role
 * for (`sso_no_role`).
 */
export class SsoRefusedError extends DomainError {
  constructor(
    code: 'sso_refused' | 'sso_no_role',
    message: string,
    /** For the audit line, never the client. */
    readonly auditReason?: string,
  ) {
    super(code, message);
  }
}

/**
 * An SSO sign-in that nobody asked for here (IdP-initiated) waits for the person to say it is
 * theirs: a page of another site could otherwise sign a browser in as someone else.
 */
export class SsoConfirmError extends DomainError {
  constructor(readonly username: string) {
    super('sso_confirm', `Your identity provider signed you in as ${username}. Continue as ${username}?`);
  }
}
