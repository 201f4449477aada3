import { type AuditLog, actorOf, type RequestContext } from '../audit/audit-log.js';
import type { TrustedCa } from './trusted-ca.js';

/**
 * The CAs that client certificates must chain to, as an operator changes them
 * (PUT/DELETE /v1/cluster/certificates, PUT /v1/cluster/update_cert): checked, stored,
 * audited. A new CA, or none, ends the tokens of every certificate user: they were issued
 * on a trust that no longer holds.
 */
export class CertificateTrust {
  constructor(
    private readonly trustedCa: TrustedCa,
    private readonly certificateUsers: { revokeCertificateUsers(): Promise<void> },
    private readonly audit: AuditLog,
  ) {}

  pem(): Promise<string> {
    return this.trustedCa.pem();
  }

  async set(actor: { uid: number; username: string }, pem: string, ctx: RequestContext): Promise<void> {
    const changed = (await this.trustedCa.pem()).trim() !== pem.trim();
    await this.trustedCa.set(pem);
    if (changed) await this.certificateUsers.revokeCertificateUsers();
    this.audit.record(ctx, {
      event: 'trusted_ca_update',
      outcome: 'success',
      ...actorOf(actor),
      target: 'trusted_ca',
      changes: ['mtls_trusted_ca'],
    });
  }

  async clear(actor: { uid: number; username: string }, ctx: RequestContext): Promise<void> {
    const had = (await this.trustedCa.pem()) !== '';
    await this.trustedCa.clear();
    if (had) await this.certificateUsers.revokeCertificateUsers();
    this.audit.record(ctx, {
      event: 'trusted_ca_delete',
      outcome: 'success',
      ...actorOf(actor),
      target: 'trusted_ca',
      changes: ['mtls_trusted_ca'],
    });
  }
}
