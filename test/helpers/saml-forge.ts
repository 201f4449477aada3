import { randomBytes } from 'node:crypto';
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';

const DS = 'http://www.w3.org/2000/09/xmldsig#';
const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion';

/** A captured answer as a DOM to change: the attacker's workbench. */
export type AnswerDoc = Document;

export const decodeAnswer = (base64: string): AnswerDoc =>
  new DOMParser().parseFromString(Buffer.from(base64, 'base64').toString('utf8'), 'text/xml') as unknown as Document;
export const encodeAnswer = (doc: AnswerDoc | string): string =>
  Buffer.from(typeof doc === 'string' ? doc : new XMLSerializer().serializeToString(doc as never)).toString('base64');

export const byTag = (doc: AnswerDoc, ns: string, tag: string) => Array.from(doc.getElementsByTagNameNS(ns, tag));
export const assertionOf = (doc: AnswerDoc) => byTag(doc, SAML, 'Assertion')[0]!;

/** Every signature removed. */
export function unsigned(doc: AnswerDoc): AnswerDoc {
  for (const signature of byTag(doc, DS, 'Signature')) signature.parentNode!.removeChild(signature);
  return doc;
}

/** A fresh assertion ID, and no InResponseTo (an answer nobody asked for): each forgery then fails for its own reason only. */
export function unsolicited(doc: AnswerDoc): AnswerDoc {
  assertionOf(doc).setAttribute('ID', `_${randomBytes(16).toString('hex')}`);
  doc.documentElement!.removeAttribute('InResponseTo');
  for (const data of byTag(doc, SAML, 'SubjectConfirmationData')) data.removeAttribute('InResponseTo');
  return doc;
}

/** Sets an attribute on every element of that name. */
export function setAll(doc: AnswerDoc, tag: string, attribute: string, value: string, ns = SAML): AnswerDoc {
  for (const element of byTag(doc, ns, tag)) element.setAttribute(attribute, value);
  return doc;
}

/** The assertion signed (enveloped, exc-c14n, RSA-SHA256) with this key, its signature after its Issuer as the schema wants; the rest as it is. */
export function signAssertion(doc: AnswerDoc, signer: { certificate: string; key: string }): string {
  const xml = new XMLSerializer().serializeToString(doc as never);
  const sig = new SignedXml({
    privateKey: signer.key,
    publicCert: signer.certificate,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  sig.addReference({
    xpath: "//*[local-name(.)='Assertion']",
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  sig.computeSignature(xml, {
    prefix: 'ds',
    location: { reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: 'after' },
  });
  return encodeAnswer(sig.getSignedXml());
}
