import { isDeepStrictEqual } from 'node:util';
import { parsePemCertificates } from '../certs/client-certificate.js';
import { InvalidRequestError, LdapFieldsError } from '../errors.js';

/** A search of the directory: where, what, and how deep (the product's `user_dn_query` and `dn_group_query`). */
export interface DirectoryQuery {
  base: string;
  /** RFC 4515 filter; %u is the user's name, %D its DN, each escaped before it is put in. */
  filter: string;
  scope: 'base' | 'one' | 'subtree';
}

/** The product's `ldap` object (GET/PUT/DELETE /v1/cluster/ldap), as Tessera keeps it. */
export interface LdapConfig {
  uris: string[];
  starttls: boolean;
  /** PEM CA certificate(s) that the directory's TLS certificate must chain to. */
  ca_cert: string;
  bind_dn: string;
  /** In memory only: sealed at rest under the master key when there is one, never answered. */
  bind_pass: string;
  user_dn_template: string;
  user_dn_query: DirectoryQuery | Record<string, never>;
  dn_group_attr: string;
  dn_group_query: DirectoryQuery | Record<string, never>;
  cache_ttl: number;
  directory_timeout_s: number;
  /** LDAP logins to the API and the console. */
  control_plane: boolean;
  /** Kept as given: Tessera serves no data plane. */
  data_plane: boolean;
  /** Certificate logins of directory users (LDAP as the identity source of a trusted client certificate), while control_plane is on. */
  cba: boolean;
  /** Where a certificate names its directory user: its subject's CN, or the subject attribute of cba_identity_oid. */
  cba_identity_source: CbaIdentitySource;
  /** The dotted OID of the subject attribute that names the user (cba_identity_source "subject_oid"). */
  cba_identity_oid: string;
}

export const CBA_IDENTITY_SOURCES = ['subject_cn', 'subject_oid'] as const;
export type CbaIdentitySource = (typeof CBA_IDENTITY_SOURCES)[number];
/** A dotted OID, as cba_identity_oid is written: "1.2.3.4". */
const OID = /^[0-2](\.(0|[1-9]\d{0,9})){1,31}$/;

export const LDAP_DEFAULTS: LdapConfig = Object.freeze({
  uris: [],
  starttls: false,
  ca_cert: '',
  bind_dn: '',
  bind_pass: '',
  user_dn_template: '',
  user_dn_query: {},
  dn_group_attr: '',
  dn_group_query: {},
  cache_ttl: 300,
  directory_timeout_s: 5,
  control_plane: false,
  data_plane: false,
  cba: false,
  cba_identity_source: 'subject_cn',
  cba_identity_oid: '',
});

/** The fields that decide where, and how protected, the bind password is sent. */
const WHERE_THE_PASSWORD_GOES = ['uris', 'bind_dn', 'starttls', 'ca_cert'] as const;

/** What GET answers for a bind password that is set: the product's mask, never the password. */
export const MASKED = '***';

export const CACHE_TTL_MAX = 86_400;
export const DIRECTORY_TIMEOUT_RANGE = [5, 60] as const;

/** The configuration as GET answers it: the bind password masked. */
export function ldapView(config: LdapConfig): LdapConfig {
  return { ...config, bind_pass: config.bind_pass ? MASKED : '' };
}

/** A PUT's fields over the current configuration; the mask sent back means "unchanged". */
export function mergeLdapConfig(current: LdapConfig, patch: Partial<LdapConfig>): LdapConfig {
  const next = { ...current, ...stripUndefined(patch) };
  if (patch.bind_pass === MASKED) next.bind_pass = current.bind_pass;
  // The stored password goes nowhere new without being given again (as Grafana and GitLab hold for stored secrets).
  const kept = current.bind_pass !== '' && (patch.bind_pass === undefined || patch.bind_pass === MASKED);
  const moved = WHERE_THE_PASSWORD_GOES.filter(
    (f) => patch[f] !== undefined && !isDeepStrictEqual(patch[f], current[f]),
  );
  if (kept && moved.length > 0) {
    throw new LdapFieldsError(
      `bind_pass is required when ${moved.join(', ')} change${moved.length === 1 ? 's' : ''}: the stored one is not sent to a new place`,
      'missing_field',
    );
  }
  // A template and a query of the same kind exclude each other: the one given replaces the other.
  if (patch.user_dn_template && patch.user_dn_query === undefined) next.user_dn_query = {};
  if (isQuery(patch.user_dn_query) && patch.user_dn_template === undefined) next.user_dn_template = '';
  if (patch.dn_group_attr && patch.dn_group_query === undefined) next.dn_group_query = {};
  if (isQuery(patch.dn_group_query) && patch.dn_group_attr === undefined) next.dn_group_attr = '';
  return next;
}

export function isQuery(q: unknown): q is DirectoryQuery {
  return typeof q === 'object' && q !== null && Object.keys(q).length > 0;
}

/**
 * Checks a configuration as a whole (the product's `illegal_fields_combination` for fields
 * that exclude or need each other). A configuration that logs no one in (control_plane off)
 * may be incomplete; one that does must say where and how to find users and their groups.
 */
export function validateLdapConfig(c: LdapConfig): LdapConfig {
  for (const uri of c.uris) checkUri(uri);
  if (c.starttls && c.uris.some((u) => u.toLowerCase().startsWith('ldaps:'))) {
    throw new LdapFieldsError(
      'starttls upgrades an ldap:// connection; an ldaps:// URI is TLS already: use one or the other',
    );
  }
  // A server whose TLS fails is passed over for the next: a plain one there would take the passwords in the clear.
  const secure = c.uris.filter((u) => u.toLowerCase().startsWith('ldaps:')).length;
  if (secure > 0 && secure < c.uris.length) {
    throw new LdapFieldsError(
      'uris are all ldaps:// or all ldap:// (with starttls for TLS): a plain server after a TLS one would get the passwords in the clear when TLS fails',
    );
  }
  if (c.user_dn_template && isQuery(c.user_dn_query))
    throw new LdapFieldsError('Give user_dn_template or user_dn_query, not both');
  if (c.dn_group_attr && isQuery(c.dn_group_query))
    throw new LdapFieldsError('Give dn_group_attr or dn_group_query, not both');
  if (c.user_dn_template && !c.user_dn_template.includes('%u'))
    throw new LdapFieldsError('user_dn_template must contain %u (the user name)');
  if (isQuery(c.user_dn_query)) checkQuery(c.user_dn_query, 'user_dn_query', ['%u']);
  if (isQuery(c.dn_group_query)) checkQuery(c.dn_group_query, 'dn_group_query', ['%D', '%u']);
  if (!c.bind_dn && c.bind_pass) throw new LdapFieldsError('bind_pass needs a bind_dn');
  if (c.ca_cert) checkCaCert(c.ca_cert);
  if (!Number.isInteger(c.cache_ttl) || c.cache_ttl < 0 || c.cache_ttl > CACHE_TTL_MAX) {
    throw new InvalidRequestError(`cache_ttl must be whole seconds from 0 to ${CACHE_TTL_MAX}`);
  }
  const [min, max] = DIRECTORY_TIMEOUT_RANGE;
  if (!Number.isInteger(c.directory_timeout_s) || c.directory_timeout_s < min || c.directory_timeout_s > max) {
    throw new InvalidRequestError(`directory_timeout_s must be whole seconds from ${min} to ${max}`);
  }
  if (c.cba_identity_source === 'subject_oid' && !OID.test(c.cba_identity_oid))
    throw new LdapFieldsError(
      'cba_identity_source "subject_oid" needs cba_identity_oid: the dotted OID of the subject attribute that names the user, like "1.2.3.4"',
    );
  if (c.cba_identity_oid && !OID.test(c.cba_identity_oid))
    throw new LdapFieldsError('cba_identity_oid must be a dotted OID, like "1.2.3.4"');
  if (c.control_plane) {
    if (c.uris.length === 0) throw new LdapFieldsError('control_plane needs uris: where the directory is');
    if (!c.user_dn_template && !isQuery(c.user_dn_query))
      throw new LdapFieldsError('control_plane needs user_dn_template or user_dn_query: how a user name becomes a DN');
    if (!c.dn_group_attr && !isQuery(c.dn_group_query))
      throw new LdapFieldsError("control_plane needs dn_group_attr or dn_group_query: where a user's groups are");
  }
  return c;
}

/** Scheme, host and port only, as the product asks: ldap://host:389 or ldaps://host:636. */
function checkUri(uri: string): void {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new InvalidRequestError(`uris: "${uri}" is not a URI like ldap://ldap.example.com:389`);
  }
  if (url.protocol !== 'ldap:' && url.protocol !== 'ldaps:')
    throw new InvalidRequestError(`uris: "${uri}" must start with ldap:// or ldaps://`);
  if (
    !url.hostname ||
    (url.pathname && url.pathname !== '/') ||
    url.search ||
    url.hash ||
    url.username ||
    url.password
  ) {
    throw new InvalidRequestError(`uris: "${uri}" must hold only the scheme, the host and the port`);
  }
}

function checkQuery(q: DirectoryQuery, field: string, placeholders: string[]): void {
  if (typeof q.base !== 'string' || !q.base)
    throw new LdapFieldsError(`${field}.base is required: where the search starts`);
  if (typeof q.filter !== 'string' || !q.filter) throw new LdapFieldsError(`${field}.filter is required (RFC 4515)`);
  if (!['base', 'one', 'subtree'].includes(q.scope))
    throw new LdapFieldsError(`${field}.scope must be "base", "one" or "subtree"`);
  if (!placeholders.some((p) => q.filter.includes(p)))
    throw new LdapFieldsError(`${field}.filter must contain ${placeholders.join(' or ')}`);
}

function checkCaCert(pem: string): void {
  let certs: unknown[];
  try {
    certs = parsePemCertificates(pem);
  } catch {
    throw new InvalidRequestError('ca_cert holds a certificate that cannot be read');
  }
  if (certs.length === 0)
    throw new InvalidRequestError('ca_cert must hold PEM certificates (-----BEGIN CERTIFICATE-----)');
}

/** The fields that are given (a PUT's partial object, without its undefined ones). */
export function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
