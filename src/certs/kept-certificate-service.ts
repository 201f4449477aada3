import { type AuditLog, actorOf, type RequestContext } from '../audit/audit-log.js';
import type { KeptCertificateName } from './cluster-certificate-names.js';
import type { KeptCertificates } from './kept-certificates.js';
import { checkKeyedCertificate } from './keyed-certificate.js';

type Actor = { uid: number; username: string };

/**
 * The product's certificates that Tessera keeps without serving anything with them (`proxy`,
 * `cm`, `syncer`, `metrics_exporter`, the two internode ones, `ldap_client`), as an operator
 * changes them (PUT /v1/cluster/certificates, PUT /v1/cluster/update_cert, DELETE of an optional
 * one): checked as `api` is, stored, audited (never the key). Kept so that automation that sets
 * all of a cluster's certificates in one request works unchanged.
 */
export class KeptCertificateService {
  constructor(
    private readonly stored: KeptCertificates,
    private readonly audit: AuditLog,
    private readonly clock: () => number,
  ) {}

  /** Throws what is wrong with a certificate and key, as `set` would. */
  check(name: KeptCertificateName, certificate: string, key: string | undefined): void {
    checkKeyedCertificate(name, certificate, key, new Date(this.clock()));
  }

  /** As GET /v1/cluster/certificates lists them: `<name>_cert`, those set; never a key. */
  async view(): Promise<Record<string, string>> {
    const set = Object.entries(await this.stored.certificates());
    return Object.fromEntries(set.map(([name, pem]) => [`${name}_cert`, pem]));
  }

  async set(
    actor: Actor,
    name: KeptCertificateName,
    certificate: string,
    key: string | undefined,
    ctx: RequestContext,
  ): Promise<void> {
    this.check(name, certificate, key);
    await this.stored.set(name, certificate, key!);
    this.record(ctx, actor, 'cluster_certificate_update', name);
  }

  /** An optional one (the route refuses a required one first); one not set is no error, as the product's other optional ones. */
  async clear(actor: Actor, name: KeptCertificateName, ctx: RequestContext): Promise<void> {
    await this.stored.clear(name);
    this.record(ctx, actor, 'cluster_certificate_delete', name);
  }

  private record(
    ctx: RequestContext,
    actor: Actor,
    event: 'cluster_certificate_update' | 'cluster_certificate_delete',
    name: KeptCertificateName,
  ): void {
    this.audit.record(ctx, { event, outcome: 'success', ...actorOf(actor), target: name, changes: [name] });
  }
}
