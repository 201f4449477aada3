import { InvalidRequestError } from '../errors.js';

/** The product's `sso` object (8.0.6+) as Tessera keeps it; the SP's URLs are derived from `service.address`. */
export interface SsoConfig {
  /** SSO sign-in for the console. */
  control_plane: boolean;
  /** SSO the only sign-in for users who are not admins (their passwords no longer log in). */
  enforce_control_plane: boolean;
  protocol: 'saml2';
  issuer: {
    /** The identity provider's entity ID, which its assertions must name as their Issuer. */
    id: string;
    /** Where sign-ins are sent (its SingleSignOnService, HTTP-Redirect). */
    login_url: string;
    /** Where sign-outs are sent (its SingleLogoutService, HTTP-Redirect); '' for none. */
    logout_url: string;
    /** The metadata it was set from (base64), read-only. */
    metadata: string;
  };
  service: {
    /** The base URL the identity provider and browsers reach Tessera at; '' for the public URL. */
    address: string;
  };
}

export const SSO_DEFAULTS: SsoConfig = Object.freeze({
  control_plane: false,
  enforce_control_plane: false,
  protocol: 'saml2',
  issuer: Object.freeze({ id: '', login_url: '', logout_url: '', metadata: '' }),
  service: Object.freeze({ address: '' }),
});

/** A change as PUT /v1/cluster/sso takes it: any field, read-only ones (metadata, saml2) ignored as the GET shows them. */
export interface SsoPatch {
  control_plane?: boolean;
  enforce_control_plane?: boolean;
  protocol?: 'saml2';
  issuer?: Partial<SsoConfig['issuer']>;
  service?: { address?: string; saml2?: unknown };
}

/**
 * Where the service provider answers below its address: the paths the product's REST reference
 * writes (its `sso` object's acs_url and slo_url), which GET /v1/cluster/sso and the metadata
 * advertise; and the paths Tessera advertised before (the product's Cluster Manager UI's, on
 * its port 8443), which identity providers set up then still post to: served too.
 */
export const SP_PATHS = {
  login: '/v1/cluster/sso/saml/login',
  acs: '/v1/cluster/sso/saml/acs',
  slo: '/v1/cluster/sso/saml/slo',
} as const;
export const EARLIER_SP_PATHS = {
  login: '/cluster/sso/saml/login',
  acs: '/cluster/sso/saml/acs',
  slo: '/cluster/sso/saml/slo',
} as const;
export type SpPaths = typeof SP_PATHS | typeof EARLIER_SP_PATHS;

/** The consumers an answer may be posted to, as paths. */
export const ACS_PATHS: readonly string[] = [SP_PATHS.acs, EARLIER_SP_PATHS.acs];

/** The service provider's URLs at this address, as the product's REST reference names them. */
export function spUrls(address: string): { entity_id: string; acs_url: string; slo_url: string } {
  return {
    entity_id: `${address}/sp`,
    acs_url: `${address}${SP_PATHS.acs}`,
    slo_url: `${address}${SP_PATHS.slo}`,
  };
}

/** The address the SP is reached at: the configured one, else the public URL. */
export function addressOf(config: SsoConfig, publicUrl: string): string {
  return (config.service.address || publicUrl).replace(/\/+$/, '');
}

/** The object GET /v1/cluster/sso answers. */
export function ssoView(config: SsoConfig, publicUrl: string) {
  const address = addressOf(config, publicUrl);
  return { ...config, issuer: { ...config.issuer }, service: { address, saml2: spUrls(address) } };
}

/** The configuration after a PUT: the fields given, checked; the read-only ones as they were. */
export function mergeSso(current: SsoConfig, patch: SsoPatch): SsoConfig {
  const { metadata: _metadata, ...issuer } = patch.issuer ?? {};
  const next: SsoConfig = {
    ...current,
    ...(patch.control_plane !== undefined && { control_plane: patch.control_plane }),
    ...(patch.enforce_control_plane !== undefined && { enforce_control_plane: patch.enforce_control_plane }),
    issuer: { ...current.issuer, ...issuer },
    service: {
      address:
        patch.service?.address === undefined ? current.service.address : patch.service.address.replace(/\/+$/, ''),
    },
  };
  for (const [field, url] of [
    ['issuer.login_url', next.issuer.login_url],
    ['issuer.logout_url', next.issuer.logout_url],
    ['service.address', next.service.address],
  ] as const) {
    if (url !== '' && !isHttpUrl(url))
      throw new InvalidRequestError(`${field} must be an http(s) URL, like https://idp.example.com/sso/saml`);
  }
  if (next.service.address !== '' && new URL(next.service.address).pathname !== '/') {
    throw new InvalidRequestError(
      'service.address is a base URL without a path, like https://tessera.example.com:9443',
    );
  }
  return next;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}
