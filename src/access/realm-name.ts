/**
 * A way in: the realm that proves who a user is — its password kept here (local), the LDAP
 * directory, its client certificate, SSO, or one of its API keys. The one meaning of "realm": a user's (realmOf),
 * a login's, an audit line's and a metric's label.
 */
export type RealmName = 'local' | 'ldap' | 'certificate' | 'sso' | 'api_key';
