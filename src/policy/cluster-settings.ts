import { isDeepStrictEqual } from 'node:util';
import { type AuditLog, actorOf, type RequestContext } from '../audit/audit-log.js';
import { InvalidRequestError } from '../errors.js';
import type { EventHub } from '../events.js';
import { clusterNameOf, type PasswordHashingAlgorithm, type Policy } from './policy.js';
import type { PolicyService } from './policy-service.js';
import {
  type ClusterObject,
  KEPT_CLUSTER_FIELDS,
  KEPT_POLICY_FIELDS,
  keptView,
  type SettingsObject,
  splitKept,
} from './product-fields.js';

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
    private readonly events: EventHub,
    /** The cluster's name until one is set: the public URL's host; when the store was made; whether keys are sealed at rest. */
    private readonly about: { publicUrl: string; createdTime(): Promise<string>; sealsKeys: boolean },
  ) {}

  /** The store's creation time, read once. */
  private created?: string;

  /** GET /v1/cluster: the product's cluster object — Tessera's fields, and the others as kept. */
  async clusterObject(): Promise<ClusterObject> {
    return this.clusterObjectOf(await this.policy.get(), await this.createdTime());
  }

  /** GET /v1/cluster/policy: the product's cluster settings — the lockout fields, and the others as kept. */
  async settingsObject(): Promise<SettingsObject> {
    return settingsObjectOf(await this.policy.get());
  }

  /** PUT /v1/cluster: the fields named (those as GET answers them: no change); with `dryRun`, the object as it would be. */
  async updateCluster(
    actor: { uid: number; username: string },
    body: Record<string, unknown>,
    ctx: RequestContext,
    dryRun = false,
  ): Promise<ClusterObject> {
    const created = await this.createdTime();
    const after = await this.update(actor, ctx, dryRun, (p) => {
      const { own, kept, changed } = splitKept(
        KEPT_CLUSTER_FIELDS,
        body,
        this.clusterObjectOf(p, created),
        p.kept_cluster,
      );
      return { patch: { ...own, kept_cluster: kept }, changed };
    });
    return this.clusterObjectOf(after, created);
  }

  /** PUT /v1/cluster/policy: the fields named. */
  async updateSettings(
    actor: { uid: number; username: string },
    body: Record<string, unknown>,
    ctx: RequestContext,
  ): Promise<SettingsObject> {
    const after = await this.update(actor, ctx, false, (p) => {
      const { own, kept, changed } = splitKept(KEPT_POLICY_FIELDS, body, settingsObjectOf(p), p.kept_policy);
      return { patch: { ...own, kept_policy: kept }, changed };
    });
    return settingsObjectOf(after);
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
    // As the store has it in the change, not as this node read it up to a second ago (another node may have just set it).
    await this.policy.update((p) => {
      if (p.password_hashing_algorithm === algorithm)
        throw new InvalidRequestError(`this algorithm is already set: ${algorithm}`);
      return { password_hashing_algorithm: algorithm };
    });
    this.audit.record(ctx, {
      event: 'password_hashing_algorithm',
      outcome: 'success',
      ...actorOf(actor),
      target: 'policy',
      changes: [`algorithm ${algorithm} asked; argon2id kept`],
    });
  }

  /**
   * A change worked out on the policy as the store has it, with no other change in between
   * (two admins changing two fields at once both keep theirs); its effects — certificate
   * users' tokens ended, the listener's TLS — and its audit follow. With `dryRun`, the
   * policy as it would be: nothing written, nothing ended, nothing audited.
   */
  private async update(
    actor: { uid: number; username: string },
    ctx: RequestContext,
    dryRun: boolean,
    change: (current: Policy) => { patch: Partial<Policy>; changed: string[] },
  ): Promise<Policy> {
    if (dryRun) {
      const current = await this.policy.reload();
      return { ...current, ...change(current).patch };
    }
    let changed: string[] = [];
    const { before, after } = await this.policy.update((current) => {
      const worked = change(current);
      changed = worked.changed;
      return worked.patch;
    });
    if (CERTIFICATE_TRUST.some((field) => !isDeepStrictEqual(before[field], after[field])))
      await this.certificateUsers.revokeCertificateUsers();
    if (
      before.min_control_TLS_version !== after.min_control_TLS_version ||
      before.kept_cluster.control_cipher_suites !== after.kept_cluster.control_cipher_suites
    )
      this.events.emit('listenerTlsChanged');
    this.audit.record(ctx, {
      event: 'policy_update',
      outcome: 'success',
      ...actorOf(actor),
      target: 'policy',
      changes: changed,
    });
    return after;
  }

  private async createdTime(): Promise<string> {
    this.created ??= await this.about.createdTime();
    return this.created;
  }

  private clusterObjectOf(p: Policy, created: string): ClusterObject {
    return {
      ...keptView(KEPT_CLUSTER_FIELDS, {
        ...p.kept_cluster,
        created_time: created,
        encrypt_pkeys: this.about.sealsKeys,
      }),
      name: clusterNameOf(p, this.about.publicUrl),
      password_complexity: p.password_complexity,
      password_min_length: p.password_min_length,
      password_expiration_duration: p.password_expiration_duration,
      cm_session_timeout_minutes: p.cm_session_timeout_minutes,
      session_max_lifetime_minutes: p.session_max_lifetime_minutes,
      control_plane_basic_authentication: p.control_plane_basic_authentication,
      metrics_auth: p.metrics_auth,
      min_control_TLS_version: p.min_control_TLS_version,
      api_key_max_lifetime_days: p.api_key_max_lifetime_days,
      mtls_certificate_authentication: p.mtls_certificate_authentication,
      mtls_client_cert_subject_validation_type: p.mtls_client_cert_subject_validation_type,
      mtls_authorized_subjects: p.mtls_authorized_subjects,
    };
  }
}

function settingsObjectOf(p: Policy): SettingsObject {
  return {
    ...keptView(KEPT_POLICY_FIELDS, p.kept_policy),
    login_lockout_threshold: p.login_lockout_threshold,
    login_lockout_duration: p.login_lockout_duration,
    login_lockout_counter_reset_after: p.login_lockout_counter_reset_after,
  };
}
