import { isKeyShaped, KEY_LENGTH, KEY_PREFIX } from '../api-keys/key-format.js';
import { InvalidRequestError, MissingCredentialsError } from '../errors.js';
import type { ApiKeyProof, CertificateProof, PasswordProof } from './realms/realm.js';

/**
 * Credentials as a request presents them, read once: a token, or a proof for a realm (a
 * password, a client certificate). An identity provider's answer is none: it is posted to
 * the SSO consumer only.
 */
export type Presented = PasswordProof | CertificateProof | ApiKeyProof | { kind: 'token'; token: string };

/**
 * A password that is an API key (its shape and checksum: no password is taken for one by
 * chance; white space around it, as a key read from a file brings, dropped) is the key, with the
 * name typed beside it — also a key's length and prefix with a wrong checksum, a key mistyped,
 * which must not count as a guess at the owner's password; any other stays a password.
 */
export function keyOrPassword(proof: PasswordProof): PasswordProof | ApiKeyProof {
  const key = proof.password.trim();
  if (looksLikeKey(key)) return { kind: 'api_key', key, username: proof.username, basic: true, ip: undefined };
  // A key as the user-id with any password (`curl -u "$KEY:"`, as some clients send keys): the key, named by nobody —
  // never a name that a refusal's audit line would record.
  const asName = proof.username.trim();
  return looksLikeKey(asName)
    ? { kind: 'api_key', key: asName, username: undefined, basic: true, ip: undefined }
    : proof;
}

const looksLikeKey = (text: string) => isKeyShaped(text) || (text.length === KEY_LENGTH && text.startsWith(KEY_PREFIX));

/** A Bearer (or JWT) credential that is an API key (no token starts with `tsr_`: a JWS starts with `eyJ`); undefined for a token. */
function bearerKey(token: string): ApiKeyProof | undefined {
  // Every key proof of one shape (the same fields, in one order): the hot path's property reads stay monomorphic.
  return token.startsWith(KEY_PREFIX)
    ? { kind: 'api_key', key: token, username: undefined, basic: false, ip: undefined }
    : undefined;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes the token68 of a Basic Authorization header (RFC 7617): base64 of UTF-8
 * "user-id:password". The first colon separates them, so a password may contain colons.
 */
export function decodeBasicCredentials(token68: string): PasswordProof {
  const malformed = () =>
    new InvalidRequestError(
      'The Basic Authorization header must carry base64 of "username:password"',
      'malformed_authorization_header',
    );
  if (!BASE64.test(token68) || token68.length % 4 === 1) throw malformed();
  let decoded: string;
  try {
    decoded = utf8.decode(Buffer.from(token68, 'base64'));
  } catch {
    throw malformed();
  }
  const colon = decoded.indexOf(':');
  if (colon < 0) throw malformed();
  return { kind: 'password', username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * Splits "Scheme rest" with any amount of white space between them. Linear in the header's
 * length: a backtracking pattern here would let a long crafted header stall the event loop.
 */
export function splitAuthorization(header: string): { scheme: string; value: string } {
  const trimmed = header.trim();
  const space = trimmed.search(/\s/);
  if (space < 0) return { scheme: trimmed.toLowerCase(), value: '' };
  return { scheme: trimmed.slice(0, space).toLowerCase(), value: trimmed.slice(space + 1).trim() };
}

/**
 * The one reading of an Authorization header: "JWT <token>" (the product's scheme),
 * "Bearer <token>" (RFC 6750) or "Basic <base64>", the scheme in any case. The usual
 * spellings are read without parsing (the hot path); any other is parsed, and a malformed
 * one is refused with what is wrong.
 */
export function parseAuthorization(header: string): PasswordProof | ApiKeyProof | { kind: 'token'; token: string } {
  const token = plainToken(header);
  if (token) return bearerKey(token) ?? { kind: 'token', token };
  const basic = plainBasic(header);
  if (basic) return keyOrPassword(basic);
  const { scheme, value } = splitAuthorization(header);
  if ((scheme === 'jwt' || scheme === 'bearer') && value) return bearerKey(value) ?? { kind: 'token', token: value };
  if (scheme === 'basic') return keyOrPassword(decodeBasicCredentials(value));
  throw new MissingCredentialsError(
    'Present a token as "Authorization: JWT <token>" or "Bearer <token>", or Basic credentials',
  );
}

/**
 * The token of a header written the usual way ("JWT <token>" or "Bearer <token>", one space),
 * read without parsing: the hot path of token checks, where only a token verified before
 * (an exact match) is taken. Undefined for any other header, which parseAuthorization reads.
 */
function plainToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const space = header.indexOf(' ');
  if (space !== 3 && space !== 6) return undefined;
  const scheme = header.slice(0, space).toLowerCase();
  if (scheme !== 'jwt' && scheme !== 'bearer') return undefined;
  return header.slice(space + 1) || undefined;
}

/**
 * The credentials of a header written the usual way ("Basic <base64>", one space), for the
 * hot path of Basic calls; undefined for any other header, or one that does not decode
 * (parseAuthorization reads those, and says what is wrong).
 */
function plainBasic(header: string | undefined): PasswordProof | undefined {
  if (header === undefined || header.indexOf(' ') !== 5 || header.slice(0, 5).toLowerCase() !== 'basic')
    return undefined;
  try {
    return decodeBasicCredentials(header.slice(6));
  } catch {
    return undefined;
  }
}
