import { inflateRawSync } from 'node:zlib';
import { type Profile, SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import type { Clock } from '../clock.js';
import { SsoConfigError, SsoRefusedError } from '../errors.js';
import { validateEmail } from '../users/username.js';
import type { SamlStore, SsoSession } from './saml-store.js';
import { EMAIL_NAME_ID, MAX_ELEMENTS, markupOnly, parseXml, select, textOf, tooManyElements } from './saml-xml.js';
import { spMetadata } from './sp-metadata.js';
import type { SsoCertificateSet, SsoCertificates } from './sso-certificates.js';
import { ACS_PATHS, addressOf, type SsoConfig, spUrls } from './sso-config.js';
import type { SsoSettings } from './sso-settings.js';

/** How long an authentication request may be answered (the product's three minutes). */
export const REQUEST_MS = 3 * 60_000;
/** The clocks of Tessera and the identity provider may differ by this much. */
const CLOCK_SKEW_MS = 60_000;
const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';
/** A logout answer by HTTP-Redirect, inflated: a few KB in practice. */
const MAX_REDIRECT_BYTES = 65_536;

/** Who an identity provider's answer says the person is, once every check passed. */
export interface Asserted {
  email: string;
  firstName: string;
  lastName: string;
  /** redisRoleMapping: the role uids the identity provider gives (for a first sign-in only). */
  roleUids: number[];
  session: SsoSession;
  /** The browser whose request this answers (the hash of its nonce); null: an answer nobody here asked for (IdP-initiated). */
  browserHash: string | null;
}

interface Setup {
  config: SsoConfig;
  certs: SsoCertificateSet;
  saml: SAML;
  /** The base URL the consumers are reached at. */
  address: string;
}

/** An email an SSO user can be named by: what a user's email may be here, in ASCII (the lookup key is then unambiguous). */
function isSsoEmail(email: string): boolean {
  try {
    // eslint-disable-next-line no-control-regex
    return /^[\x21-\x7e]+$/.test(email) && validateEmail(email) === email;
  } catch {
    return false;
  }
}

const refused = (auditReason: string) =>
  new SsoRefusedError(
    'sso_refused',
    "The identity provider's answer could not be verified: sign in again",
    auditReason,
  );

/**
 * Tessera as a SAML 2.0 service provider, on node-saml (signatures with xml-crypto: only the
 * signed bytes are read, only the sso_issuer certificate is trusted, one assertion per
 * answer), plus what node-saml leaves to its user: the assertion's Issuer is the configured
 * identity provider, it is addressed to the consumer it was posted to (bearer Recipient, the
 * Response's Destination: the documented one, or the earlier one an identity provider set up
 * before may still use — never one for the other) within its time, and it is used once on
 * every node (its ID kept in the store until it expires). Requests are signed (RSA-SHA256)
 * and name no consumer (the identity provider posts to the one it was set up with), answers
 * by HTTP-POST only, InResponseTo checked against the requests of the last three minutes in
 * the store, on any node; an answer nobody asked for (IdP-initiated) is taken, once.
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

  /** The identity provider's sign-in URL with a signed AuthnRequest (HTTP-Redirect), and that request's ID. */
  async loginRequest(): Promise<{ url: string; requestId: string }> {
    const { saml } = await this.setup();
    const url = await saml.getAuthorizeUrlAsync('', undefined, {});
    const request = parseXml(
      inflateRawSync(Buffer.from(new URL(url).searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8'),
    );
    const requestId = request ? textOf('/samlp:AuthnRequest/@ID', request) : '';
    if (!requestId) throw new Error('node-saml made an AuthnRequest without an ID');
    return { url, requestId };
  }

  /**
   * The person an HTTP-POST answer (its SAMLResponse field) proves, or a refusal (why: for the
   * audit line); `acsPath`: the consumer it was posted to, which it must be addressed to.
   */
  async verify(samlResponse: string, acsPath: string): Promise<Asserted> {
    const { saml, config, address } = await this.setup();
    if (!ACS_PATHS.includes(acsPath)) throw refused(`an answer posted to ${acsPath}, which is no consumer`);
    const acsUrl = `${address}${acsPath}`;
    const text = Buffer.from(samlResponse, 'base64').toString('utf8');
    // What holds no signature element (outside comments and CDATA) is refused before any parsing: a linear search.
    if (!/<(?:[A-Za-z_][\w.-]*:)?SignatureValue[\s>]/.test(markupOnly(text))) throw refused('the answer is not signed');
    if (tooManyElements(text)) throw refused(`the answer has more than ${MAX_ELEMENTS} elements`);
    let profile: Profile | null;
    try {
      ({ profile } = await saml.validatePostResponseAsync({ SAMLResponse: samlResponse }));
    } catch (err) {
      throw refused((err as Error).message);
    }
    if (!profile) throw refused('the answer holds no assertion');
    if (profile.issuer !== config.issuer.id)
      throw refused(`the assertion's Issuer is ${profile.issuer}, not ${config.issuer.id}`);
    const now = this.clock();
    const response = parseXml(profile.getSamlResponseXml?.() ?? '');
    const destination = response ? textOf('/samlp:Response/@Destination', response) : '';
    if (destination !== '' && destination !== acsUrl)
      throw refused(`the answer is for ${destination}, not this consumer (${acsUrl})`);
    const assertion = parseXml(profile.getAssertionXml?.() ?? ''); // the bytes the signature covers
    if (!assertion) throw refused('the signed assertion cannot be read');
    const until = this.confirmedUntil(assertion, acsUrl, now);
    // Which request the signed assertion answers (node-saml reads the Response's copy, which an attacker may remove).
    const inResponseTo = textOf(
      `/saml:Assertion/saml:Subject/saml:SubjectConfirmation[@Method='${BEARER}']/saml:SubjectConfirmationData/@InResponseTo`,
      assertion,
    );
    const request = inResponseTo ? await this.store.requestOf(inResponseTo) : undefined;
    if (inResponseTo && !request)
      throw refused(`the assertion answers a request never sent here or over three minutes old (${inResponseTo})`);
    const id = textOf('/saml:Assertion/@ID', assertion);
    const conditionsEnd = Date.parse(textOf('/saml:Assertion/saml:Conditions/@NotOnOrAfter', assertion));
    if (!id) throw refused('the assertion has no ID');
    if (
      !(await this.store.consumeAssertion(
        id,
        Math.max(until, Number.isNaN(conditionsEnd) ? until : conditionsEnd) + CLOCK_SKEW_MS,
      ))
    ) {
      throw refused(`assertion ${id} was used before (a replay)`);
    }
    return { ...this.person(profile), browserHash: request?.browserHash ?? null };
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
    if (typeof query.SAMLResponse !== 'string' || typeof query.Signature !== 'string')
      throw refused('an unsigned logout answer');
    // node-saml inflates it without a bound (a 10 KB URL can be 8 MB of XML) and parses it before the signature is checked.
    let xml: string;
    try {
      xml = inflateRawSync(Buffer.from(query.SAMLResponse, 'base64'), { maxOutputLength: MAX_REDIRECT_BYTES }).toString(
        'utf8',
      );
    } catch {
      throw refused(`a logout answer that is not deflated XML of at most ${MAX_REDIRECT_BYTES} bytes`);
    }
    if (tooManyElements(xml)) throw refused(`a logout answer with more than ${MAX_ELEMENTS} elements`);
    try {
      await saml.validateRedirectAsync(query, rawQuery);
    } catch (err) {
      throw refused((err as Error).message);
    }
  }

  /** The service provider's metadata; 406 missing_certificate without sso_service. */
  async metadata(): Promise<string> {
    const [config, certs] = await Promise.all([this.settings.get(), this.certificates.get()]);
    if (!certs.service)
      throw new SsoConfigError(
        'missing_certificate',
        'Upload the sso_service certificate and key first (PUT /v1/cluster/certificates): the metadata carries its certificate and is signed with its key',
      );
    const urls = spUrls(addressOf(config, this.publicUrl));
    const { certificate, key, validTo } = certs.service;
    return spMetadata({
      entityId: urls.entity_id,
      acsUrl: urls.acs_url,
      sloUrl: urls.slo_url,
      certificate,
      key,
      validTo,
      serviceName: `Tessera - ${new URL(urls.entity_id).host}`,
    });
  }

  /** The time a bearer confirmation addressed to this consumer allows the assertion to be used until; refused without one. */
  private confirmedUntil(assertion: Document, acsUrl: string, now: number): number {
    const confirmations = select(
      `/saml:Assertion/saml:Subject/saml:SubjectConfirmation[@Method='${BEARER}']/saml:SubjectConfirmationData`,
      assertion,
    ) as Element[];
    const addressed = confirmations.filter((c) => c.getAttribute('Recipient') === acsUrl);
    if (addressed.length === 0) throw refused(`no bearer confirmation is addressed to ${acsUrl} (Recipient)`);
    const until = Math.max(
      ...addressed.map((c) => Date.parse(c.getAttribute('NotOnOrAfter') ?? '')).filter((t) => !Number.isNaN(t)),
    );
    if (!Number.isFinite(until)) throw refused('the bearer confirmation has no NotOnOrAfter');
    if (until + CLOCK_SKEW_MS <= now) throw refused('the bearer confirmation expired');
    return until;
  }

  private person(profile: Profile): Omit<Asserted, 'browserHash'> {
    const attribute = (name: string) =>
      [profile.attributes && (profile.attributes as Record<string, unknown>)[name]]
        .flat()
        .filter((v): v is string => typeof v === 'string');
    const email = (profile.nameIDFormat === EMAIL_NAME_ID ? profile.nameID : (attribute('email')[0] ?? '')).trim();
    if (!isSsoEmail(email))
      throw refused(
        'the assertion names no email address that can be a user here (NameID emailAddress, or the email attribute: ASCII, no ":", at most 256 characters)',
      );
    return {
      email,
      firstName: attribute('firstName')[0] ?? '',
      lastName: attribute('lastName')[0] ?? '',
      roleUids: attribute('redisRoleMapping')
        .map((v) => Number(v.trim()))
        .filter((n) => Number.isSafeInteger(n) && n > 0),
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
    if (!config.control_plane)
      throw new SsoRefusedError(
        'sso_refused',
        'SSO is off on this cluster: sign in with a username and password',
        'sso off',
      );
    if (!certs.service || !certs.issuer || !config.issuer.id || !config.issuer.login_url) {
      throw new SsoRefusedError('sso_refused', 'SSO is not fully set up on this cluster', 'sso incomplete');
    }
    const address = addressOf(config, this.publicUrl);
    const urls = spUrls(address);
    const saml = new SAML({
      callbackUrl: urls.acs_url,
      // No AssertionConsumerServiceURL in the request: the identity provider posts to the consumer it
      // was set up with (one set up with the earlier path refuses a request naming another: Entra ID's AADSTS50011).
      disableRequestAcsUrl: true,
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
    this.built = { config, certs, saml, address };
    return this.built;
  }
}
