import { generateServiceProviderMetadata } from '@node-saml/node-saml';
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import { EMAIL_NAME_ID, REDIRECT_BINDING } from './saml-xml.js';

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const BASIC = 'urn:oasis:names:tc:SAML:2.0:attrname-format:basic';

/** What an SSO sign-in reads of the person: the product's attribute names. */
const REQUESTED = [
  { name: 'firstName', required: true },
  { name: 'lastName', required: true },
  { name: 'email', required: true },
  { name: 'redisRoleMapping', required: false },
];

export interface SpDescription {
  entityId: string;
  acsUrl: string;
  sloUrl: string;
  certificate: string;
  key: string;
  /** The certificate's end: the metadata's validUntil. */
  validTo: Date;
  /** Shown to people by the identity provider. */
  serviceName: string;
}

/**
 * GET /v1/cluster/sso/saml/metadata/sp: the service provider's metadata as the product's
 * is made — signed AuthnRequests, signed assertions wanted, emailAddress NameID, the
 * HTTP-POST consumer, the HTTP-Redirect logout, the attributes it reads — valid until the
 * service certificate ends, and signed with its key.
 */
export function spMetadata(sp: SpDescription): string {
  const generated = generateServiceProviderMetadata({
    issuer: sp.entityId,
    callbackUrl: sp.acsUrl,
    logoutCallbackUrl: sp.sloUrl,
    identifierFormat: EMAIL_NAME_ID,
    wantAssertionsSigned: true,
    privateKey: sp.key,
    publicCerts: [sp.certificate],
    signMetadata: false,
  });
  const doc = new DOMParser().parseFromString(generated, 'text/xml');
  const root = doc.documentElement!;
  root.setAttribute('validUntil', sp.validTo.toISOString());
  // node-saml writes its logout endpoint with the POST binding; Tessera's takes HTTP-Redirect, as the product's.
  for (const slo of Array.from(doc.getElementsByTagNameNS(MD, 'SingleLogoutService')))
    slo.setAttribute('Binding', REDIRECT_BINDING);
  const consuming = doc.createElementNS(MD, 'md:AttributeConsumingService');
  consuming.setAttribute('index', '1');
  const name = doc.createElementNS(MD, 'md:ServiceName');
  name.setAttribute('xml:lang', 'en');
  name.appendChild(doc.createTextNode(sp.serviceName));
  consuming.appendChild(name);
  for (const attribute of REQUESTED) {
    const requested = doc.createElementNS(MD, 'md:RequestedAttribute');
    requested.setAttribute('Name', attribute.name);
    requested.setAttribute('NameFormat', BASIC);
    requested.setAttribute('FriendlyName', attribute.name);
    if (attribute.required) requested.setAttribute('isRequired', 'true');
    consuming.appendChild(requested);
  }
  // After the AssertionConsumerService, which node-saml writes last: the schema's order.
  doc.getElementsByTagNameNS(MD, 'SPSSODescriptor')[0]!.appendChild(consuming);
  return signed(new XMLSerializer().serializeToString(doc), sp);
}

/** The metadata with an enveloped signature of the service key, first in the EntityDescriptor (where the schema puts it). */
function signed(xml: string, sp: SpDescription): string {
  const signer = new SignedXml({
    privateKey: sp.key,
    publicCert: sp.certificate,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  signer.addReference({
    xpath: "/*[local-name(.)='EntityDescriptor']",
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  signer.computeSignature(xml, {
    prefix: 'ds',
    location: { reference: "/*[local-name(.)='EntityDescriptor']", action: 'prepend' },
  });
  return signer.getSignedXml();
}
