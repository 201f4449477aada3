import { DomainError, RetryLaterError } from './domain-error.js';

/** PUT /v1/cluster/auditing/control_plane with a sink that cannot work as given. */
export class InvalidAuditSinkError extends DomainError {
  constructor(message: string) {
    super('invalid_audit_sink', message);
  }
}

/** DELETE /v1/cluster/auditing/control_plane with nothing configured (the product's db_conns_audit_config_not_found). */
export class AuditConfigNotFoundError extends DomainError {
  constructor() {
    super('audit_config_not_found', 'No control-plane auditing is configured');
  }
}

/** Blocking mode: a sink is behind by its bound, so a change that it could not record is refused until it catches up. */
export class AuditBacklogFullError extends RetryLaterError {
  constructor(sink: string) {
    super(
      'audit_backlog_full',
      `Changes are refused until the SIEM sink "${sink}" catches up (blocking mode: its backlog is at max_backlog); sign-ins, reads, logouts and ending sessions go on`,
      5,
    );
  }
}
