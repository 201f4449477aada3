import { isDeepStrictEqual } from 'node:util';
import type { RealmName } from '../../access/realm-name.js';
import { subjectAuthorized, subjectLine } from '../../certs/client-certificate.js';
import type { TrustedCa } from '../../certs/trusted-ca.js';
import type { Clock } from '../../clock.js';
import type { Deadline } from '../../deadline.js';
import { CertificateRefusedError, MissingCredentialsError, TryAgainError } from '../../errors.js';
import type { ClientThrottle } from '../../guard/client-throttle.js';
import type { Policy } from '../../policy/policy.js';
import type { PolicyService } from '../../policy/policy-service.js';
import type { User } from '../../users/user.js';
import {
  type Attempt,
  isNotMine,
  NOT_MINE,
  type NotMine,
  type Proof,
  type Realm,
  type RememberedAs,
  type Verdict,
} from '../realms/realm.js';

/** A realm that says whose a trusted client certificate is (the certificate guards checked its path and subject first). */
export interface CertificateRealm extends Realm {
  /** Named in a refusal's audit line. */
  readonly name: RealmName;
}

export interface CertificateGuardDeps {
  policy: Pick<PolicyService, 'get' | 'reload'>;
  trustedCa: Pick<TrustedCa, 'currentCertificates'>;
  /** A certificate checked in full is counted per address as a password checked in full is (one remembered is not). */
  throttle: Pick<ClientThrottle, 'check'>;
  clock: Clock;
}

/** A certificate is remembered under its fingerprint (its chain's too: see client-certificate.ts), with no secret beside it. */
export function certificateRememberedAs(proof: Proof): RememberedAs | undefined {
  return proof.kind === 'certificate'
    ? { key: `certificate:${proof.certificate.fingerprint}`, secret: '', login: false }
    : undefined;
}

const refused = (error: CertificateRefusedError | MissingCredentialsError): Verdict => ({
  outcome: 'refused',
  error,
  guess: false,
  reason: error.code,
});

/** What a certificate is trusted by: the cluster's certificate settings and its trusted CAs. */
interface Trust {
  rules: Pick<
    Policy,
    'mtls_certificate_authentication' | 'mtls_client_cert_subject_validation_type' | 'mtls_authorized_subjects'
  >;
  cas: string[];
}

/**
 * The guards of a client certificate, around the realms that say whose it is (the product's
 * certificate users; a directory's, with LDAP certificate logins), as one realm to the chain:
 * while the cluster takes certificates (mtls_certificate_authentication), every check of one in
 * full is counted by the client's throttle; the certificate needs a path to a trusted CA
 * (mtls_trusted_ca) as a client certificate's must be and a subject the cluster lets in; then
 * the realms are asked in order. Each refusal has its own code. The trust is read again after
 * a realm found the user: a change made meanwhile (which ends certificate users' tokens, on
 * every node) makes the check try again rather than stand. A success is remembered no longer
 * than the certificate or its path lasts.
 */
export class CertificateGuards implements Realm {
  constructor(
    private readonly realms: readonly CertificateRealm[],
    private readonly deps: CertificateGuardDeps,
  ) {}

  async supports(proof: Proof): Promise<boolean> {
    return proof.kind === 'certificate' && (await this.deps.policy.get()).mtls_certificate_authentication;
  }

  async authenticate(proof: Proof, attempt: Attempt): Promise<Verdict> {
    if (proof.kind !== 'certificate') return NOT_MINE;
    attempt.trail.realm = 'certificate';
    if (!(await this.supports(proof)))
      return refused(
        new MissingCredentialsError('This cluster takes no client certificates: present a token or Basic credentials'),
      );
    // Every check in full counts, on a login or any request (a certificate remembered never does).
    await this.deps.throttle.check(attempt.ctx.ip);
    const trust = await this.trust();
    if (!trust.rules.mtls_certificate_authentication) return refused(new MissingCredentialsError());
    const { leaf } = proof.certificate;
    const now = new Date(this.deps.clock());
    let validUntil: Date;
    try {
      // The path checks (and @peculiar/x509) are loaded at the first certificate: a node without them does not carry them.
      const { verifyPath } = await import('../../certs/certificate-path.js');
      const trusted = await this.deps.trustedCa.currentCertificates();
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
    const { mtls_client_cert_subject_validation_type: type, mtls_authorized_subjects: subjects } = trust.rules;
    if (!subjectAuthorized(leaf, type, subjects)) {
      return refused(
        new CertificateRefusedError(
          'certificate_subject_unknown',
          "The certificate's subject is not one the cluster lets in (mtls_authorized_subjects)",
        ),
      );
    }
    const subject = subjectLine(leaf);
    if (subject === '') {
      return refused(
        new CertificateRefusedError(
          'certificate_subject_unknown',
          'The certificate has no subject: a certificate user is found by its subject (certificate_subject_line)',
        ),
      );
    }
    const verdict = await this.ask(proof, attempt);
    if (verdict.outcome !== 'success') return verdict;
    if (!isDeepStrictEqual(await this.trust(), trust))
      throw new TryAgainError('The certificate settings changed during the login; try again');
    const left = validUntil.getTime() - now.getTime();
    return { ...verdict, rememberMs: Math.min(verdict.rememberMs ?? left, left) };
  }

  async refresh(user: User, deadline: Deadline): Promise<User | undefined | NotMine> {
    for (const realm of this.realms) {
      const refreshed = await realm.refresh(user, deadline);
      if (!isNotMine(refreshed)) return refreshed;
    }
    return NOT_MINE;
  }

  async lookup(): Promise<undefined> {
    return undefined;
  }

  /** Each realm in turn until one says whose the certificate is; none: nobody's. */
  private async ask(proof: Proof & { kind: 'certificate' }, attempt: Attempt): Promise<Verdict> {
    for (const realm of this.realms) {
      const verdict = await realm.authenticate(proof, attempt);
      if (verdict.outcome === 'not_mine') continue;
      attempt.trail.realm = realm.name;
      return verdict;
    }
    const subject = subjectLine(proof.certificate.leaf);
    return refused(
      new CertificateRefusedError('certificate_subject_unknown', `No user has certificate_subject_line "${subject}"`),
    );
  }

  /** The trust as the store has it now (not a copy of a second ago). */
  private async trust(): Promise<Trust> {
    const [policy, cas] = await Promise.all([this.deps.policy.reload(), this.deps.trustedCa.currentCertificates()]);
    const { mtls_certificate_authentication, mtls_client_cert_subject_validation_type, mtls_authorized_subjects } =
      policy;
    return {
      rules: { mtls_certificate_authentication, mtls_client_cert_subject_validation_type, mtls_authorized_subjects },
      cas: cas.map((ca) => ca.fingerprint256),
    };
  }
}
