/**
 * Every error Tessera answers with, re-exported from `errors/` so that import sites name
 * this one module. The base `DomainError`, `RetryLaterError` and the `ErrorCode` union live
 * in `domain-error.ts`; malformed requests and wrong methods in `requests.ts`; refused logins
 * and tokens (missing or invalid credentials, expired password or token, locked account,
 * throttled address, Basic turned off) in `credentials.ts`; refused actions of a known caller
 * in `authorization.ts`; a node or dependency that cannot serve now (busy, store or guard
 * unreachable, not ready, starting, issuer moved) in `availability.ts`; user lookups and
 * name/email conflicts in `users.ts`; password rules in `passwords.ts`; roles and the last
 * admin in `roles.ts`; sessions in `sessions.ts`; the LDAP directory, its settings and its
 * users in `ldap.ts`; client and cluster certificates in `certificates.ts`; SSO settings,
 * sign-ins and users in `sso.ts`; API keys in `api-keys.ts`; second factors in `mfa.ts`; SIEM sinks in `siem.ts`. Which HTTP status each code gets is decided in
 * `http/error-response.ts`.
 */
export * from './errors/api-keys.js';
export * from './errors/authorization.js';
export * from './errors/availability.js';
export * from './errors/certificates.js';
export * from './errors/credentials.js';
export * from './errors/domain-error.js';
export * from './errors/ldap.js';
export * from './errors/mfa.js';
export * from './errors/passwords.js';
export * from './errors/requests.js';
export * from './errors/roles.js';
export * from './errors/sessions.js';
export * from './errors/siem.js';
export * from './errors/sso.js';
export * from './errors/users.js';
