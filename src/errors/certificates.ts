import { DomainError } from './domain-error.js';

/** A client certificate that logs no one in, with the reason's own code (all 401). */
export class CertificateRefusedError extends DomainError {
  constructor(
    code:
      | 'certificate_required'
      | 'certificate_untrusted'
      | 'certificate_expired'
      | 'certificate_not_yet_valid'
      | 'certificate_subject_unknown',
    message: string,
  ) {
    super(code, message);
  }
}

/** A password asked of (or given to) a user who logs in with a client certificate. */
export class CertificateUserError extends DomainError {
  constructor(message = 'This user logs in with a client certificate: it has no password') {
    super('certificate_user', message);
  }
}

/** /v1/cluster/certificates: a name the product has not, a certificate that cannot be taken, one that cannot be deleted or rotated. */
export class ClusterCertificateError extends DomainError {
  constructor(
    code:
      | 'unknown_certificate'
      | 'invalid_certificate'
      | 'expired_certificate'
      | 'not_found'
      | 'rotation_unsupported'
      | 'delete_required_certificate_not_allowed',
    message: string,
  ) {
    super(code, message);
  }
}
