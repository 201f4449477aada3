import { SsoConfigError } from '../errors.js';
import { parseXml, REDIRECT_BINDING, select, textOf } from './saml-xml.js';

/** One identity provider's metadata is a few dozen elements; a federation's thousands of entities are not taken. */
const METADATA_ELEMENTS = 5000;

/** What the product takes from an identity provider's metadata. */
export interface IdpFacts {
  id: string;
  login_url: string;
  logout_url: string;
}

/**
 * POST /v1/cluster/sso/saml/metadata/idp: the identity provider's entity ID and its
 * HTTP-Redirect sign-in and sign-out URLs, from its metadata (base64 XML). Its signing
 * certificate is not taken from here: as in the product, it is given apart (sso_issuer).
 */
export function readIdpMetadata(base64: string): IdpFacts {
  const text = /^[A-Za-z0-9+/=\s]+$/.test(base64) ? Buffer.from(base64, 'base64').toString('utf8') : '';
  const doc = text.trimStart().startsWith('<') ? parseXml(text, METADATA_ELEMENTS) : undefined;
  if (!doc)
    throw new SsoConfigError(
      'saml_metadata_parsing_error',
      `idp_metadata must be the identity provider's metadata XML (one identity provider, at most ${METADATA_ELEMENTS} elements), base64-encoded`,
    );
  const entity = (select('//md:EntityDescriptor[md:IDPSSODescriptor]', doc) as Node[])[0];
  if (!entity)
    throw new SsoConfigError(
      'saml_metadata_validation_error',
      'The metadata describes no identity provider (an EntityDescriptor with an IDPSSODescriptor)',
    );
  const id = textOf('@entityID', entity);
  const login_url = textOf(
    `md:IDPSSODescriptor/md:SingleSignOnService[@Binding='${REDIRECT_BINDING}']/@Location`,
    entity,
  );
  const logout_url = textOf(
    `md:IDPSSODescriptor/md:SingleLogoutService[@Binding='${REDIRECT_BINDING}']/@Location`,
    entity,
  );
  if (!id)
    throw new SsoConfigError('saml_metadata_validation_error', 'The identity provider in the metadata has no entityID');
  if (!login_url)
    throw new SsoConfigError(
      'saml_metadata_validation_error',
      'The identity provider takes no sign-in by HTTP-Redirect (SingleSignOnService), which Tessera sends',
    );
  return { id, login_url, logout_url };
}
