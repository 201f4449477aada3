import { DOMParser } from '@xmldom/xmldom';
import * as xpath from 'xpath';

/** The SAML namespaces the queries use. */
export const select = xpath.useNamespaces({
  md: 'urn:oasis:names:tc:SAML:2.0:metadata',
  ds: 'http://www.w3.org/2000/09/xmldsig#',
  samlp: 'urn:oasis:names:tc:SAML:2.0:protocol',
  saml: 'urn:oasis:names:tc:SAML:2.0:assertion',
});

export const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
export const POST_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
export const EMAIL_NAME_ID = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

/**
 * At most this many elements in a message of the identity provider: a real answer has a few
 * dozen to a few hundred; the XPath queries that node-saml, xml-crypto and Tessera run cost
 * the square of the siblings, so a flat list of tens of thousands would hold a node for minutes.
 */
export const MAX_ELEMENTS = 1000;

/** Whether the text has more elements than `max` (start tags counted, before any parsing). */
export function tooManyElements(text: string, max = MAX_ELEMENTS): boolean {
  let count = 0;
  for (const _ of text.matchAll(/<[A-Za-z_]/g)) if (++count > max) return true;
  return false;
}

/** An XML document, or undefined when the text is not one (no DTDs, no entities: xmldom expands none; more than `maxElements`). */
export function parseXml(text: string, maxElements = MAX_ELEMENTS): Document | undefined {
  if (tooManyElements(text, maxElements)) return undefined;
  let failed = false;
  const doc = new DOMParser({
    errorHandler: { warning: () => (failed = true), error: () => (failed = true), fatalError: () => (failed = true) },
  }).parseFromString(text, 'text/xml');
  return failed || !doc?.documentElement || doc.doctype ? undefined : (doc as unknown as Document);
}

/** The text of the first node the query finds (an attribute's value, an element's text), or ''. */
export function textOf(query: string, node: Node): string {
  const found = select(query, node, true) as Node | undefined;
  return (found?.nodeValue ?? found?.textContent ?? '').trim();
}

/** The text without its comments and CDATA sections (an unclosed one hides the rest), in one pass: each character read once or twice. */
export function markupOnly(text: string): string {
  const opener = /<!--|<!\[CDATA\[/g;
  let out = '';
  let at = 0;
  for (let found = opener.exec(text); found; found = opener.exec(text)) {
    out += text.slice(at, found.index);
    const end = text.indexOf(found[0] === '<!--' ? '-->' : ']]>', found.index + found[0].length);
    if (end < 0) return out;
    at = end + 3;
    opener.lastIndex = at;
  }
  return out + text.slice(at);
}
