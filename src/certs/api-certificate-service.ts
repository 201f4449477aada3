import 'reflect-metadata'; // @peculiar/x509's dependency injection asks for it before it loads
import { X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { type AuditLog, actorOf, type RequestContext } from '../audit/audit-log.js';
import { ClusterCertificateError } from '../errors.js';
import type { EventHub } from '../events.js';
import { type CertificateNames, makeSelfSigned } from '../tls/certificate.js';
import type { ApiCertificate, ApiCertificates } from './api-certificate.js';
import { checkKeyedCertificate } from './keyed-certificate.js';

type Actor = { uid: number; username: string };

/** What this node's API listener started with: `--tls-cert` (`selfMade: false`) or the first start's self-signed one. */
export interface StartedCertificate {
  certificate: string;
  selfMade: boolean;
}

/**
 * The REST API's own certificate (the product's `api`) as an operator changes it
 * (PUT /v1/cluster/certificates, PUT /v1/cluster/update_cert, POST …/rotate; never deleted:
 * it is a required certificate): checked, stored for every node, audited (never the key), and
 * announced so that this node's listener takes it for new connections at once (others within
 * a second or two). The stored one wins over what a node started with; none stored: each node
 * serves its own.
 */
export class ApiCertificateService {
  constructor(
    private readonly stored: ApiCertificates,
    /** Undefined on a node without TLS (--no-tls) and in a CLI command. */
    private readonly started: StartedCertificate | undefined,
    private readonly events: EventHub,
    private readonly audit: AuditLog,
    private readonly clock: () => number,
  ) {}

  /** Throws what is wrong with a certificate and key, as `set` would. */
  check(certificate: string, key: string | undefined): void {
    checkKeyedCertificate('api', certificate, key, new Date(this.clock()));
  }

  /** The stored certificate and its key, for the listener (none: it serves what it started with). */
  serving(): Promise<ApiCertificate | undefined> {
    return this.stored.get();
  }

  /** The certificate (PEM chain) the API serves: the stored one, else what this node started with. */
  async pem(): Promise<string | undefined> {
    return (await this.stored.get())?.certificate ?? this.started?.certificate;
  }

  async set(actor: Actor, certificate: string, key: string | undefined, ctx: RequestContext): Promise<void> {
    this.check(certificate, key);
    await this.stored.set(certificate, key!, 'given');
    this.changed(ctx, actor, 'api_certificate_update');
  }

  /**
   * A new self-signed certificate (new key, the names of the one in use, a year's validity),
   * stored for every node — only while the certificate in use is one Tessera made. Asked by
   * name (`{"name": "api"}`), an operator's certificate (or none: a node without TLS) is 403:
   * PUT a new one instead. Asked for all internal certificates (no name, the docs' example), an
   * operator's is not one of them: nothing is rotated, nothing changes, and the audit line says so.
   */
  async rotate(actor: Actor, ctx: RequestContext, { named }: { named: boolean }): Promise<void> {
    const inUse = await this.inUse();
    if (!inUse?.selfMade) {
      if (named)
        throw new ClusterCertificateError(
          'rotation_unsupported',
          inUse
            ? 'The API certificate in use was given by an operator, not made by Tessera: PUT /v1/cluster/certificates with a new one instead'
            : 'This node serves no TLS (--no-tls) and no API certificate is stored: there is nothing to rotate',
        );
      this.audit.record(ctx, {
        event: 'api_certificate_rotate',
        outcome: 'success',
        ...actorOf(actor),
        target: 'api',
        changes: [],
        reason: inUse
          ? "nothing to rotate: api is an operator's certificate"
          : 'nothing to rotate: no TLS, none stored',
      });
      return;
    }
    const made = await makeSelfSigned(namesOf(inUse.certificate));
    await this.stored.set(made.cert, made.private, 'rotated');
    this.changed(ctx, actor, 'api_certificate_rotate');
  }

  private async inUse(): Promise<StartedCertificate | undefined> {
    const stored: ApiCertificate | undefined = await this.stored.reload();
    return stored ? { certificate: stored.certificate, selfMade: stored.origin === 'rotated' } : this.started;
  }

  private changed(ctx: RequestContext, actor: Actor, event: 'api_certificate_update' | 'api_certificate_rotate'): void {
    this.events.emit('listenerTlsChanged');
    this.audit.record(ctx, { event, outcome: 'success', ...actorOf(actor), target: 'api', changes: ['api'] });
  }
}

/** The names the leaf of a PEM chain is for: its CN, its SAN DNS names and IP addresses. */
export function namesOf(pem: string): CertificateNames {
  const leaf = new x509.X509Certificate(new X509Certificate(pem).raw);
  const san = leaf.getExtension(x509.SubjectAlternativeNameExtension);
  const names = san?.names.items ?? [];
  const dns = names.filter((n) => n.type === 'dns').map((n) => n.value);
  const ips = names.filter((n) => n.type === 'ip').map((n) => n.value);
  const commonName = leaf.subjectName.getField('CN')[0] ?? dns[0] ?? ips[0] ?? 'localhost';
  // A certificate named by its CN alone: the new one names it in subjectAltName too (what clients check).
  return { commonName, dns: dns.length + ips.length > 0 ? dns : [commonName], ips };
}
