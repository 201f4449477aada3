import { isDeepStrictEqual } from 'node:util';
import { type AuditLog, actorOf, type RequestContext } from '../audit/audit-log.js';
import type { SsoCertificateName } from '../certs/cluster-certificate-names.js';
import { SsoConfigError } from '../errors.js';
import { readIdpMetadata } from './idp-metadata.js';
import type { ServiceProvider } from './service-provider.js';
import type { SsoCertificates } from './sso-certificates.js';
import { addressOf, mergeSso, type SsoConfig, type SsoPatch, ssoView } from './sso-config.js';
import type { SsoSettings } from './sso-settings.js';

type Actor = { uid: number; username: string };

/** SSO required of users who are not admins: from then on their passwords let them in no longer. */
const enforced = (c: SsoConfig) => c.control_plane && c.enforce_control_plane;

/**
 * The cluster's SSO settings as the product's requests change them (/v1/cluster/sso, its IdP
 * metadata upload, the sso_service and sso_issuer certificates): checked, stored for every
 * node, audited. Turning SSO on needs the identity provider's ID and sign-in URL (400
 * missing_param) and both certificates (406 missing_certificate).
 */
export class SsoService {
  constructor(
    private readonly settings: SsoSettings,
    private readonly certificates: SsoCertificates,
    private readonly provider: Pick<ServiceProvider, 'metadata'>,
    private readonly users: { revokeSsoUsers(): Promise<void>; revokePasswordUsers(): Promise<void> },
    private readonly audit: AuditLog,
    private readonly publicUrl: string,
  ) {}

  async get() {
    return ssoView(await this.settings.get(), this.publicUrl);
  }

  async put(actor: Actor, patch: SsoPatch, ctx: RequestContext) {
    const before = await this.settings.reload();
    const next = mergeSso(before, patch);
    if (next.control_plane) await this.assertComplete(next);
    await this.store(actor, before, next, Object.keys(patch), ctx);
    return ssoView(next, this.publicUrl);
  }

  /** POST /v1/cluster/sso/saml/metadata/idp: the identity provider's ID and URLs from its metadata (base64 XML). */
  async uploadIdpMetadata(actor: Actor, base64: string, ctx: RequestContext) {
    const facts = readIdpMetadata(base64);
    const before = await this.settings.reload();
    let checked: SsoConfig;
    try {
      checked = mergeSso(before, { issuer: facts }); // the URLs as a PUT would check them
    } catch (err) {
      throw new SsoConfigError('saml_metadata_validation_error', `The metadata's ${(err as Error).message}`);
    }
    const next: SsoConfig = { ...checked, issuer: { ...checked.issuer, metadata: base64.replace(/\s+/g, '') } };
    await this.store(actor, before, next, ['issuer'], ctx);
    return ssoView(next, this.publicUrl);
  }

  /** DELETE /v1/cluster/sso: the settings and both certificates gone, SSO users' tokens ended. */
  async delete(actor: Actor, ctx: RequestContext): Promise<void> {
    await this.settings.clear();
    await this.certificates.clearAll();
    await this.users.revokeSsoUsers();
    this.audit.record(ctx, { event: 'sso_delete', outcome: 'success', ...actorOf(actor), target: 'sso' });
  }

  spMetadata(): Promise<string> {
    return this.provider.metadata();
  }

  /** The SSO certificates as GET /v1/cluster/certificates lists them (never the service key). */
  async certificatesView(): Promise<{ sso_service_cert?: string; sso_issuer_cert?: string }> {
    const { service, issuer } = await this.certificates.get();
    return {
      ...(service && { sso_service_cert: service.certificate }),
      ...(issuer && { sso_issuer_cert: issuer.certificate }),
    };
  }

  checkCertificate(name: SsoCertificateName, certificate: string, key: string | undefined): void {
    this.certificates.check(name, certificate, key);
  }

  /** A new certificate: the identity provider's (what its assertions are checked with) ends SSO users' tokens. */
  async setCertificate(
    actor: Actor,
    name: SsoCertificateName,
    certificate: string,
    key: string | undefined,
    ctx: RequestContext,
  ): Promise<void> {
    const before = await this.certificates.reload();
    await this.certificates.set(name, certificate, key);
    if (name === 'sso_issuer' && before.issuer?.certificate !== certificate) await this.users.revokeSsoUsers();
    this.audit.record(ctx, { event: 'sso_certificate_update', outcome: 'success', ...actorOf(actor), target: name });
  }

  async clearCertificate(actor: Actor, name: SsoCertificateName, ctx: RequestContext): Promise<void> {
    if ((await this.certificates.clear(name)) && name === 'sso_issuer') await this.users.revokeSsoUsers();
    this.audit.record(ctx, { event: 'sso_certificate_delete', outcome: 'success', ...actorOf(actor), target: name });
  }

  /** What lets an SSO user in: a change of any of it ends their tokens (they sign in again under the new one). */
  private trust(c: SsoConfig) {
    return [c.control_plane, c.issuer.id, c.issuer.login_url, addressOf(c, this.publicUrl)];
  }

  private async assertComplete(next: SsoConfig): Promise<void> {
    const missing = [!next.issuer.id && 'issuer.id', !next.issuer.login_url && 'issuer.login_url'].filter(Boolean);
    if (missing.length > 0) {
      throw new SsoConfigError(
        'missing_param',
        `Turning SSO on needs ${missing.join(' and ')} (PUT /v1/cluster/sso, or the identity provider's metadata: POST /v1/cluster/sso/saml/metadata/idp)`,
      );
    }
    const certs = await this.certificates.reload();
    const absent = [
      !certs.service && "sso_service (Tessera's certificate and key)",
      !certs.issuer && "sso_issuer (the identity provider's certificate)",
    ].filter(Boolean);
    if (absent.length > 0)
      throw new SsoConfigError(
        'missing_certificate',
        `Turning SSO on needs ${absent.join(' and ')}: PUT /v1/cluster/certificates`,
      );
  }

  private async store(
    actor: Actor,
    before: SsoConfig,
    next: SsoConfig,
    changes: string[],
    ctx: RequestContext,
  ): Promise<void> {
    await this.settings.put(next);
    if (!isDeepStrictEqual(this.trust(before), this.trust(next))) await this.users.revokeSsoUsers();
    // The sessions their passwords started end too, and with them what the nodes remember of those passwords.
    if (enforced(next) && !enforced(before)) await this.users.revokePasswordUsers();
    this.audit.record(ctx, { event: 'sso_update', outcome: 'success', ...actorOf(actor), target: 'sso', changes });
  }
}
