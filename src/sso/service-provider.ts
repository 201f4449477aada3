import { type Profile, SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import type { Clock } from '../clock.js';
import { SsoConfigError, SsoRefusedError } from '../errors.js';
import type { SamlStore, SsoSession } from './saml-store.js';
import { EMAIL_NAME_ID, parseXml, select, textOf } from './saml-xml.js';
import type { SsoCertificates, SsoCertificateSet } from './sso-certificates.js';
import { addressOf, type SsoConfig, spUrls } from './sso-config.js';
import type { SsoSettings } from './sso-settings.js';
import { spMetadata } from './sp-metadata.js';

/** How long an authentication request may be answered (the product's three minutes). */
export const REQUEST_MS = 3 * 60_000;
/** The clocks of Tessera and the identity provider may differ by this much. */
const CLOCK_SKEW_MS = 60_000;
const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';

/** Who an identity provider's answer says the person is, once every check passed. */
export interface Asserted {
  email: string;
  firstName: string;
  lastName: string;
  /** redisRoleMapping: the role uids the identity provider gives (for a first sign-in only). */
  roleUids: number[];
  session: SsoSession;
}

interface Setup {
  config: SsoConfig;
  certs: SsoCertificateSet;
  saml: SAML;
  urls: ReturnType<typeof spUrls>;
}

const refused = (auditReason: string) => new SsoRefusedError('sso_refused', 'The identity provider\'s answer could not be verified: sign in again', auditReason);

/**
 * Tessera as a SAML 2.0 service provider, on node-saml (signatures with xml-crypto: only the
 * signed bytes are read, only the sso_issuer certificate is trusted, one assertion per
 * answer), plus what node-saml leaves to its user: the assertion's Issuer is the configured
 * identity provider, it is addressed to this consumer (bearer Recipient, the Response's
 * Destination) within its time, and it is used once on every node (its ID kept in the
 * store until it expires). Requests are signed (RSA-SHA256), answers by HTTP-POST only,
 * InResponseTo checked against the requests of the last three minutes in the store, on any
 * node; an answer nobody asked for (IdP-initiated) is taken, once.
 */
export class ServiceProvider {
  private built?: Setup;

  constructor(
    private readonly settings: SsoSettings,
    private readonly certificates: SsoCertificates,
    private readonly store: SamlStore,
    private readonly publicUrl: string,
    private readonly clock: Clock,
  ) {}

  /** The identity provider's sign-in URL with a signed AuthnRequest (HTTP-Redirect). */
  async loginUrl(): Promise<string> {
    const { saml } = await this.setup();
    return saml.getAuthorizeUrlAsync('', undefined, {});
  }

  /** The person an HTTP-POST answer (its SAMLResponse field) proves, or a refusal (why: for the audit line). */
  async verify(samlResponse: string): Promise<Asserted> {
    const { saml, config, urls } = await this.setup();
    let profile: Profile | null;
    try {
      ({ profile } = await saml.validatePostResponseAsync({ SAMLResponse: samlResponse }));
    } catch (err) {
      throw refused((err as Error).message);
    }
    if (!profile) throw refused('the answer holds no assertion');
    if (profile.issuer !== config.issuer.id) throw refused(`the assertion's Issuer is ${profile.issuer}, not ${config.issuer.id}`);
    const now = this.clock();
    const response = parseXml(profile.getSamlResponseXml?.() ?? '');
    const destination = response ? textOf('/samlp:Response/@Destination', response) : '';
    if (destination !== '' && destination !== urls.acs_url) throw refused(`the answer is for ${destination}, not this consumer`);
    const assertion = parseXml(profile.getAssertionXml?.() ?? ''); // the bytes the signature covers
    if (!assertion) throw refused('the signed assertion cannot be read');
    const until = this.confirmedUntil(assertion, urls.acs_url, now);
    const id = textOf('/saml:Assertion/@ID', assertion);
    const conditionsEnd = Date.parse(textOf('/saml:Assertion/saml:Conditions/@NotOnOrAfter', assertion));
    if (!id) throw refused('the assertion has no ID');
    if (!(await this.store.consumeAssertion(id, Math.max(until, Number.isNaN(conditionsEnd) ? until : conditionsEnd) + CLOCK_SKEW_MS))) {
      throw refused(`assertion ${id} was used before (a replay)`);
    }
    return this.person(profile);
  }

  /** The identity provider's logout URL for this session (a signed LogoutRequest), when it has one. */
  async logoutUrl(session: SsoSession): Promise<string | undefined> {
    const { saml, config } = await this.setup();
    if (!config.issuer.logout_url) return undefined;
    return saml.getLogoutUrlAsync({ issuer: config.issuer.id, ...session } as Profile, '', {});
  }

  /** A LogoutResponse at the logout URL (HTTP-Redirect): signed by the identity provider, a success. */
  async verifyLogoutResponse(query: Record<string, string>, rawQuery: string): Promise<void> {
    const { saml } = await this.setup();
    if (typeof query.SAMLResponse !== 'string' || typeof query.Signature !== 'string') throw refused('an unsigned logout answer');
    try {
      await saml.validateRedirectAsync(query, rawQuery);
    } catch (err) {
      throw refused((err as Error).message);
    }
  }

  /** The service provider's metadata; 406 missing_certificate without sso_service. */
  async metadata(): Promise<string> {
    const [config, certs] = await Promise.all([this.settings.get(), this.certificates.get()]);
    if (!certs.service) throw new SsoConfigError('missing_certificate', 'Upload the sso_service certificate and key first (PUT /v1/cluster/certificates): the metadata carries its certificate and is signed with its key');
    const urls = spUrls(addressOf(config, this.publicUrl));
    const { certificate, key, validTo } = certs.service;
    return spMetadata({ entityId: urls.entity_id, acsUrl: urls.acs_url, sloUrl: urls.slo_url, certificate, key, validTo, serviceName: `Tessera - ${new URL(urls.entity_id).host}` });
  }

  /** The time a bearer confirmation addressed to this consumer allows the assertion to be used until; refused without one. */
  private confirmedUntil(assertion: Document, acsUrl: string, now: number): number {
    const confirmations = select(`/saml:Assertion/saml:Subject/saml:SubjectConfirmation[@Method='${BEARER}']/saml:SubjectConfirmationData`, assertion) as Element[];
    const addressed = confirmations.filter((c) => c.getAttribute('Recipient') === acsUrl);
    if (addressed.length === 0) throw refused(`no bearer confirmation is addressed to ${acsUrl} (Recipient)`);
    const until = Math.max(...addressed.map((c) => Date.parse(c.getAttribute('NotOnOrAfter') ?? '')).filter((t) => !Number.isNaN(t)));
    if (!Number.isFinite(until)) throw refused('the bearer confirmation has no NotOnOrAfter');
    if (until + CLOCK_SKEW_MS <= now) throw refused('the bearer confirmation expired');
    return until;
  }

  private person(profile: Profile): Asserted {
    const attribute = (name: string) => [profile.attributes && (profile.attributes as Record<string, unknown>)[name]].flat().filter((v): v is string => typeof v === 'string');
    const email = (profile.nameIDFormat === EMAIL_NAME_ID ? profile.nameID : attribute('email')[0] ?? '').trim();
    // eslint-disable-next-line no-control-regex
    if (!/^[\x21-\x7e]+@[\x21-\x7e]+$/.test(email)) throw refused('the assertion names no ASCII email address (NameID emailAddress, or the email attribute)');
    return {
      email,
      firstName: attribute('firstName')[0] ?? '',
      lastName: attribute('lastName')[0] ?? '',
      roleUids: attribute('redisRoleMapping').map((v) => Number(v.trim())).filter((n) => Number.isSafeInteger(n) && n > 0),
      session: {
        nameID: profile.nameID,
        nameIDFormat: profile.nameIDFormat,
        ...(profile.nameQualifier && { nameQualifier: profile.nameQualifier }),
        ...(profile.spNameQualifier && { spNameQualifier: profile.spNameQualifier }),
        ...(profile.sessionIndex && { sessionIndex: profile.sessionIndex }),
      },
    };
  }

  /** node-saml made for the settings and certificates as they are now (again only when either changed). */
  private async setup(): Promise<Setup> {
    const [config, certs] = await Promise.all([this.settings.get(), this.certificates.get()]);
    if (this.built?.config === config && this.built.certs === certs) return this.built;
    if (!config.control_plane) throw new SsoRefusedError('sso_refused', 'SSO is off on this cluster: sign in with a username and password', 'sso off');
    if (!certs.service || !certs.issuer || !config.issuer.id || !config.issuer.login_url) {
      throw new SsoRefusedError('sso_refused', 'SSO is not fully set up on this cluster', 'sso incomplete');
    }
    const urls = spUrls(addressOf(config, this.publicUrl));
    const saml = new SAML({
      callbackUrl: urls.acs_url,
      issuer: urls.entity_id,
      audience: urls.entity_id,
      entryPoint: config.issuer.login_url,
      logoutUrl: config.issuer.logout_url || config.issuer.login_url,
      idpIssuer: config.issuer.id,
      idpCert: certs.issuer.certificate,
      privateKey: certs.service.key,
      publicCert: certs.service.certificate,
      signatureAlgorithm: 'sha256',
      digestAlgorithm: 'sha256',
      identifierFormat: EMAIL_NAME_ID,
      // The assertion must be signed (the product: unsigned answers are refused); the Response may be too.
      wantAssertionsSigned: true,
      wantAuthnResponseSigned: false,
      acceptedClockSkewMs: CLOCK_SKEW_MS,
      validateInResponseTo: ValidateInResponseTo.ifPresent,
      requestIdExpirationPeriodMs: REQUEST_MS,
      cacheProvider: this.store.requestCache(),
      disableRequestedAuthnContext: true,
    });
    this.built = { config, certs, saml, urls };
    return this.built;
  }
}
