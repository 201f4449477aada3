import { DomainError, RetryLaterError } from './domain-error.js';

/** The LDAP directory did not answer in time or refused the connection: never a wrong password. */
export class DirectoryUnavailableError extends RetryLaterError {
  /** `reason`: what the client library said, for the log only; `answered`: a directory answered (and refused), rather than none. */
  constructor(
    readonly reason?: unknown,
    readonly answered = false,
  ) {
    super('directory_unavailable', 'The LDAP directory cannot be reached; try again shortly', 2);
  }
}

/** A PUT /v1/cluster/ldap or an LDAP mapping whose fields do not go together (the product's codes). */
export class LdapFieldsError extends DomainError {
  constructor(
    message: string,
    code:
      | 'illegal_fields_combination'
      | 'missing_field'
      | 'invalid_dn_param'
      | 'invalid_name_param'
      | 'invalid_role_uids_param' = 'illegal_fields_combination',
  ) {
    super(code, message);
  }
}

/** The LDAP settings given could not connect or bind: refused with the reason (no directory answered, or one refused), not stored. */
export class LdapConnectionError extends DomainError {
  constructor(reason: string, answered: boolean) {
    super(
      'ldap_connection_failed',
      answered
        ? `The LDAP directory refused these settings: ${reason}`
        : `Could not connect to an LDAP directory at these uris: ${reason}`,
    );
  }
}

export class LdapMappingNotFoundError extends DomainError {
  constructor() {
    super('ldap_mapping_not_exist', 'No such LDAP mapping');
  }
}

/** A change that only a local user can take (a password, a name), asked of a directory user. */
export class DirectoryUserError extends DomainError {
  constructor(message = 'This user logs in through the LDAP directory: change it there') {
    super('directory_user', message);
  }
}
