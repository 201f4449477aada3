import { subjectLine } from '../../certs/client-certificate.js';
import type { PolicyService } from '../../policy/policy-service.js';
import type { User } from '../../users/user.js';
import type { UserStore } from '../../users/user-store.js';
import type { CertificateRealm } from '../guards/certificate-guards.js';
import { NOT_MINE, type NotMine, type Proof, type Verdict } from './realm.js';

/**
 * The product's certificate users (`auth_method: "certificate"`): the user whose
 * certificate_subject_line is exactly the subject of a client certificate that the
 * certificate guards found trusted. Any change of the trust settings ends these users'
 * tokens (and so what was remembered of them).
 */
export class CertificateUserRealm implements CertificateRealm {
  readonly name = 'certificate';

  constructor(
    private readonly policy: Pick<PolicyService, 'get'>,
    private readonly users: Pick<UserStore, 'findByCertificateSubject'>,
  ) {}

  async supports(proof: Proof): Promise<boolean> {
    return proof.kind === 'certificate';
  }

  async authenticate(proof: Proof): Promise<Verdict> {
    if (proof.kind !== 'certificate') return NOT_MINE;
    const user = await this.users.findByCertificateSubject(subjectLine(proof.certificate.leaf));
    return user ? { outcome: 'success', realm: 'certificate', user } : NOT_MINE;
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
