import { isDeepStrictEqual } from 'node:util';
import { type AuditLog, actorOf, type RequestContext } from '../audit/audit-log.js';
import { InvalidRequestError } from '../errors.js';
import type { EventHub } from '../events.js';
import type { PasswordHashingAlgorithm, Policy } from './policy.js';
import type { PolicyService } from './policy-service.js';

/** The settings that decide which client certificates prove who a certificate user is. */
const CERTIFICATE_TRUST: readonly (keyof Policy)[] = [
  'mtls_certificate_authentication',
  'mtls_client_cert_subject_validation_type',
  'mtls_authorized_subjects',
];

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
    /** Told when what the API's TLS listener serves changed (min_control_TLS_version). */
    private readonly events?: EventHub,
  ) {}

  /** With `dryRun`, the settings as they would be: nothing written, nothing ended, nothing audited. */
  async update(
    actor: { uid: number; username: string },
    patch: Partial<Policy>,
    ctx: RequestContext,
    dryRun = false,
  ): Promise<Policy> {
    const before = await this.policy.get();
    if (dryRun) return { ...before, ...patch };
    const after = await this.policy.update(patch);
    if (CERTIFICATE_TRUST.some((field) => !isDeepStrictEqual(before[field], after[field])))
      await this.certificateUsers.revokeCertificateUsers();
    if (before.min_control_TLS_version !== after.min_control_TLS_version) this.events?.emit('listenerTlsChanged');
    this.audit.record(ctx, {
      event: 'policy_update',
      outcome: 'success',
      ...actorOf(actor),
      target: 'policy',
      changes: Object.keys(patch),
    });
    return after;
  }

  /**
   * PATCH /v1/cluster/change_password_hashing_algorithm: the product's choice between SHA-256
   * and PBKDF2. Tessera hashes every password with argon2id (memory-hard, stronger than
   * either) and keeps doing so: the algorithm asked for is kept, so that asking for the one
   * already set is refused as the product refuses it, and audited with what was asked; nothing
   * is rehashed.
   */
  async changePasswordHashingAlgorithm(
    actor: { uid: number; username: string },
    algorithm: PasswordHashingAlgorithm,
    ctx: RequestContext,
  ): Promise<void> {
    // As the store has it now, not as this node read it up to a second ago (another node may have just set it).
    if ((await this.policy.reload()).password_hashing_algorithm === algorithm)
      throw new InvalidRequestError(`this algorithm is already set: ${algorithm}`);
    await this.policy.update({ password_hashing_algorithm: algorithm });
    this.audit.record(ctx, {
      event: 'password_hashing_algorithm',
      outcome: 'success',
      ...actorOf(actor),
      target: 'policy',
      changes: [`algorithm ${algorithm} asked; argon2id kept`],
    });
  }
}
