import type { FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { type Credentials, parseAuthorization } from '../../auth/credentials.js';
import type { ApiLine } from '../../config/config.js';
import { CertificateRefusedError, InvalidRequestError, MissingCredentialsError } from '../../errors.js';
import { certificateSource } from '../client-certificate.js';
import { CERTIFICATE_REFUSALS } from '../error-schemas.js';
import { loginOutcomeOf } from '../../metrics/metrics.js';
import { TTL_DEFAULT_SECONDS } from '../../tokens/claims.js';
import type { Tessera } from '../../tessera.js';
import type { TesseraApp } from '../tessera-app.js';
import { contextOf } from '../request-context.js';
import { AccessToken, AuthorizeBody } from '../schemas.js';

type Body = Static<typeof AuthorizeBody>;

/** POST /v1/users/authorize in the wire formats of 7.22 (Basic header) and 7.4 (JSON body). */
export function authorizeRoute(app: TesseraApp, { auth, config, metrics, policy }: Pick<Tessera, 'auth' | 'config' | 'metrics' | 'policy'>): void {
  const clientCertificate = certificateSource(config);
  app.post(
    '/v1/users/authorize',
    {
      config: { access: 'public', errors: ['missing_credentials', 'invalid_credentials', 'password_expired', 'account_locked', 'too_many_requests', 'try_again', 'guard_unavailable', 'store_unavailable', 'directory_unavailable', 'malformed_authorization_header', ...CERTIFICATE_REFUSALS] },
      schema: {
        tags: ['tokens'],
        summary: 'Log in: a username and password for a token',
        description:
          'Both wire formats of the product: 7.22 sends "Authorization: Basic" and an optional {"ttl"}; 7.4 sends ' +
          '{"username", "password", "ttl"?}. A wrong username and a wrong password answer alike (401 invalid_credentials); ' +
          'a right but expired password answers 401 password_expired. With no credentials at all, a client certificate of a ' +
          'certificate user logs it in (mtls_certificate_authentication); each refusal of a certificate has its own code.',
        security: [{ basic: [] }, {}],
        body: AuthorizeBody,
        response: { 200: AccessToken },
      },
    },
    async (request, reply) => {
      const line = request.headers.authorization !== undefined && config.apiLine !== '7.4' ? '7.22' : '7.4';
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      const ttl = request.body.ttl ?? TTL_DEFAULT_SECONDS;
      try {
        // No credentials at all: a client certificate, when the cluster takes them (explicit credentials win over it).
        const bare = request.headers.authorization === undefined && request.body.username === undefined && request.body.password === undefined;
        const presented = bare ? clientCertificate(request) : undefined;
        const byCertificate = presented && (await auth.authorizeCertificate(presented, ttl, contextOf(request)));
        if (bare && !byCertificate && (await policy.get()).mtls_certificate_authentication) {
          throw new CertificateRefusedError('certificate_required', 'Present a client certificate, Basic credentials, or {"username", "password"}');
        }
        const token = byCertificate || (await auth.authorize(credentialsOf(request, request.body, config.apiLine), ttl, contextOf(request)));
        metrics.login('success', line, seconds());
        reply.header('cache-control', 'no-store');
        return { access_token: token };
      } catch (err) {
        const outcome = loginOutcomeOf((err as { code?: string }).code ?? '');
        if (outcome) metrics.login(outcome, line, seconds());
        throw err;
      }
    },
  );
}

function credentialsOf(request: FastifyRequest, body: Body, line: ApiLine): Credentials {
  const header = request.headers.authorization;
  if (line === '7.22' || (line === 'both' && header !== undefined)) return fromHeader(header);
  return fromBody(body, line);
}

function fromHeader(header: string | undefined): Credentials {
  if (!header) throw new MissingCredentialsError('Send the credentials as "Authorization: Basic …"');
  const presented = parseAuthorization(header);
  if (presented.kind !== 'password') throw new MissingCredentialsError('Only Basic credentials obtain a token here');
  return presented.credentials;
}

function fromBody(body: Body, line: ApiLine): Credentials {
  const { username, password } = body;
  if (username !== undefined && password !== undefined) return { username, password };
  if (line === 'both' && username === undefined && password === undefined) {
    throw new MissingCredentialsError(
      'Send credentials as "Authorization: Basic …" or as {"username", "password"} in the body',
    );
  }
  throw new InvalidRequestError('A JSON body with both "username" and "password" is required');
}
