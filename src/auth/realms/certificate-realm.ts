import { subjectAuthorized, subjectLine } from '../../certs/client-certificate.js';
import type { TrustedCa } from '../../certs/trusted-ca.js';
import type { Clock } from '../../clock.js';
import { CertificateRefusedError, MissingCredentialsError } from '../../errors.js';
import type { ClientThrottle } from '../../guard/client-throttle.js';
import type { PolicyService } from '../../policy/policy-service.js';
import type { User } from '../../users/user.js';
import type { UserStore } from '../../users/user-store.js';
import {
  type Attempt,
  NOT_MINE,
  type NotMine,
  type Proof,
  type Realm,
  type RememberedAs,
  type Verdict,
} from './realm.js';

/** A certificate is remembered under its fingerprint (its chain's too: see client-certificate.ts), with no secret beside it. */
export function certificateRememberedAs(proof: Proof): RememberedAs | undefined {
  return proof.kind === 'certificate'
    ? { key: `certificate:${proof.certificate.fingerprint}`, secret: '', login: false }
    : undefined;
}

const refused = (error: CertificateRefusedError): Verdict => ({
  outcome: 'refused',
  error,
  guess: false,
  reason: error.code,
});

/**
 * Client certificates (the product's certificate users, `auth_method: "certificate"`), while
 * the cluster takes them (mtls_certificate_authentication): a path to a trusted CA
 * (mtls_trusted_ca) as a client certificate's must be, a subject the cluster lets in, and a
 * user with exactly that subject line. Each refusal has its own code. A success is
 * remembered until the certificate or its path ends; any change of the trust settings ends
 * certificate users' tokens (and so what was remembered of them).
 */
export class CertificateRealm implements Realm {
  constructor(
    private readonly policy: PolicyService,
    private readonly trustedCa: Pick<TrustedCa, 'currentCertificates'>,
    private readonly users: Pick<UserStore, 'findByCertificateSubject'>,
    /** A login by certificate is counted per address as any login is (one remembered is not). */
    private readonly throttle: Pick<ClientThrottle, 'check'>,
    private readonly clock: Clock,
  ) {}

  async supports(proof: Proof): Promise<boolean> {
    return proof.kind === 'certificate' && (await this.policy.get()).mtls_certificate_authentication;
  }

  async authenticate(proof: Proof, { purpose, ctx, trail }: Attempt): Promise<Verdict> {
    if (proof.kind !== 'certificate') return NOT_MINE;
    const { leaf } = proof.certificate;
    const subject = subjectLine(leaf);
    trail.realm = 'certificate';
    if (!(await this.supports(proof))) {
      const error = new MissingCredentialsError(
        'This cluster takes no client certificates: present a token or Basic credentials',
      );
      return { outcome: 'refused', error, guess: false };
    }
    if (purpose === 'login') await this.throttle.check(ctx.ip);
    // The account first, then the trust as the store has it now (not a copy of a second ago):
    // a change of the trust made meanwhile raises the account's token epoch after this read,
    // and so ends whatever is made of this check — on every node.
    const user = subject === '' ? undefined : await this.users.findByCertificateSubject(subject);
    const rules = await this.policy.reload();
    if (!rules.mtls_certificate_authentication)
      return { outcome: 'refused', error: new MissingCredentialsError(), guess: false };
    const now = new Date(this.clock());
    let validUntil: Date;
    try {
      // The path checks (and @peculiar/x509) are loaded at the first certificate: a node without them does not carry them.
      const { verifyPath } = await import('../../certs/certificate-path.js');
      const trusted = await this.trustedCa.currentCertificates();
      ({ validUntil } = await verifyPath(proof.certificate, trusted, now).catch((err: unknown) => {
        if (err instanceof CertificateRefusedError) throw err;
        // An extension that cannot be read (a malformed certificate) lets no one in: a refusal, never a fault.
        throw new CertificateRefusedError(
          'certificate_untrusted',
          'The client certificate (or one on its path) cannot be read',
        );
      }));
    } catch (err) {
      if (err instanceof CertificateRefusedError) return refused(err);
      throw err;
    }
    if (!subjectAuthorized(leaf, rules.mtls_client_cert_subject_validation_type, rules.mtls_authorized_subjects)) {
      return refused(
        new CertificateRefusedError(
          'certificate_subject_unknown',
          "The certificate's subject is not one the cluster lets in (mtls_authorized_subjects)",
        ),
      );
    }
    if (subject === '') {
      return refused(
        new CertificateRefusedError(
          'certificate_subject_unknown',
          'The certificate has no subject: a certificate user is found by its subject (certificate_subject_line)',
        ),
      );
    }
    if (!user)
      return refused(
        new CertificateRefusedError('certificate_subject_unknown', `No user has certificate_subject_line "${subject}"`),
      );
    return { outcome: 'success', realm: 'certificate', user, rememberMs: validUntil.getTime() - now.getTime() };
  }

  /** Its tokens end with any change of the trust settings; while they hold, the user is as it is. */
  async refresh(user: User): Promise<User | undefined | NotMine> {
    if (user.realm !== 'certificate') return NOT_MINE;
    return (await this.policy.get()).mtls_certificate_authentication ? user : undefined;
  }

  async lookup(): Promise<undefined> {
    return undefined;
  }
}
