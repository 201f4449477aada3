import { isDeepStrictEqual } from 'node:util';
import { actorOf, type AuditLog, type RequestContext } from '../audit/audit-log.js';
import type { Policy } from './policy.js';
import type { PolicyService } from './policy-service.js';

/** The settings that decide which client certificates prove who a certificate user is. */
const CERTIFICATE_TRUST: readonly (keyof Policy)[] = ['mtls_certificate_authentication', 'mtls_client_cert_subject_validation_type', 'mtls_authorized_subjects'];

/**
 * The cluster's security settings as an operator changes them (PUT /v1/cluster, /v1/cluster/policy):
 * at once here, within a second on other nodes, audited. A change of what lets a client
 * certificate in ends the tokens of every certificate user: they were issued on a trust that
 * no longer holds (they log in again under the new one).
 */
export class ClusterSettings {
  constructor(
    private readonly policy: PolicyService,
    private readonly certificateUsers: { revokeCertificateUsers(): Promise<void> },
    private readonly audit: AuditLog,
  ) {}

  async update(actor: { uid: number; username: string }, patch: Partial<Policy>, ctx: RequestContext): Promise<Policy> {
    const before = await this.policy.get();
    const after = await this.policy.update(patch);
    if (CERTIFICATE_TRUST.some((field) => !isDeepStrictEqual(before[field], after[field]))) await this.certificateUsers.revokeCertificateUsers();
    this.audit.record(ctx, { event: 'policy_update', outcome: 'success', ...actorOf(actor), target: 'policy', changes: Object.keys(patch) });
    return after;
  }
}
