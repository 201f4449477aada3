import type { FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { keyOrPassword } from '../../auth/credentials.js';
import type { ApiKeyProof, CertificateProof, PasswordProof } from '../../auth/realms/realm.js';
import type { ApiLine } from '../../config/config.js';
import { publicUrlOf } from '../../config/config.js';
import { InvalidRequestError, MissingCredentialsError } from '../../errors.js';
import { loginOutcomeOf } from '../../metrics/metrics.js';
import { TTL_DEFAULT_SECONDS } from '../../tokens/claims.js';
import { crossSiteGuard } from '../cross-site.js';
import { CERTIFICATE_REFUSALS } from '../error-schemas.js';
import { presentedReader } from '../presented.js';
import { contextOf } from '../request-context.js';
import { AccessToken, AuthorizeBody } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

type Body = Static<typeof AuthorizeBody>;

/** POST /v1/users/authorize in the wire formats of 7.22 (Basic header) and 7.4 (JSON body), or with a client certificate alone. */
/** The header by which the web console marks its requests, its logins among them. */
const CONSOLE_HEADER = 'x-requested-with';
const CONSOLE_MARK = 'tessera-console';

export function authorizeRoute(
  app: TesseraApp,
  { logins, config, metrics }: Pick<HttpServices, 'logins' | 'config' | 'metrics'>,
): void {
  const presentedOf = presentedReader(config);
  const sameSite = crossSiteGuard(publicUrlOf(config));
  app.post(
    '/v1/users/authorize',
    {
      config: {
        access: 'public',
        signIn: true,
        errors: [
          'missing_credentials',
          'invalid_credentials',
          'invalid_api_key',
          'api_key_expired',
          'api_key_address_refused',
          'password_expired',
          'sso_required',
          'mfa_required',
          'account_locked',
          'too_many_requests',
          'try_again',
          'guard_unavailable',
          'store_unavailable',
          'directory_unavailable',
          'issuer_moved',
          'malformed_authorization_header',
          'cross_site_request',
          ...CERTIFICATE_REFUSALS,
        ],
      },
      schema: {
        tags: ['tokens'],
        summary: 'Log in: a username and password for a token',
        description:
          'Both wire formats of the product: 7.22 sends "Authorization: Basic" and an optional {"ttl"}; 7.4 sends ' +
          '{"username", "password", "ttl"?}. A wrong username and a wrong password answer alike (401 invalid_credentials); ' +
          'a right but expired password answers 401 password_expired. With no credentials at all, a client certificate of a ' +
          'certificate user logs it in (mtls_certificate_authentication); each refusal of a certificate has its own code. ' +
          'Each login starts a session (its tokens carry its id as "sid"): the ttl is shortened to what session_max_lifetime_minutes leaves of it. ' +
          'A password of a user with a second factor answers 401 mfa_required with an mfa_token and the methods open to it: the second step is POST /v1/users/authorize/mfa. ' +
          `"${CONSOLE_HEADER}: ${CONSOLE_MARK}" marks the web console's session, which the server also ends after cm_session_timeout_minutes without a request.`,
        security: [{ basic: [] }, {}],
        body: AuthorizeBody,
        response: { 200: AccessToken },
      },
    },
    async (request) => {
      const line = request.headers.authorization !== undefined && config.apiLine !== '7.4' ? '7.22' : '7.4';
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      try {
        const proof = proofOf(request, request.body, config.apiLine, presentedOf);
        // Basic and certificates are what a browser sends by itself; a body's password a page must know.
        if (proof && (proof.kind === 'certificate' || request.headers.authorization !== undefined))
          sameSite(request, proof);
        // The web console says so (on every call): its session is idled out by the server (a client that says so only gets the stricter session).
        const console = request.headers[CONSOLE_HEADER] === CONSOLE_MARK;
        const token = await logins.authorize(
          proof ?? undefined,
          request.body.ttl ?? TTL_DEFAULT_SECONDS,
          contextOf(request),
          proof === null ? noneFor(config.apiLine) : undefined,
          console,
        );
        metrics.login('success', line, seconds());
        return { access_token: token };
      } catch (err) {
        const outcome = loginOutcomeOf((err as { code?: string }).code ?? '');
        if (outcome) metrics.login(outcome, line, seconds());
        throw err;
      }
    },
  );
}

/**
 * The proof a login presents: Basic credentials (7.22), the body's (7.4), or — with no
 * credentials at all — a client certificate; null when it presents none of them.
 */
function proofOf(
  request: FastifyRequest,
  body: Body,
  line: ApiLine,
  presentedOf: ReturnType<typeof presentedReader>,
): PasswordProof | CertificateProof | ApiKeyProof | null {
  const header = request.headers.authorization;
  if (header === undefined && body.username === undefined && body.password === undefined) {
    const presented = presentedOf(request, true);
    return presented?.kind === 'certificate' ? presented : null;
  }
  if (line === '7.22' || (line === 'both' && header !== undefined)) {
    if (header === undefined) throw new MissingCredentialsError('Send the credentials as "Authorization: Basic …"');
    const presented = presentedOf(request, false);
    if (presented?.kind !== 'password' && presented?.kind !== 'api_key')
      throw new MissingCredentialsError('Only Basic credentials (or an API key) obtain a token here');
    return presented;
  }
  if (body.username !== undefined && body.password !== undefined) {
    const proof = keyOrPassword({ kind: 'password', username: body.username, password: body.password });
    if (proof.kind === 'api_key') proof.ip = request.ip;
    return proof;
  }
  throw new InvalidRequestError('A JSON body with both "username" and "password" is required');
}

/** What a login without credentials is told, where the cluster takes no certificate instead, in the wire format of its line. */
function noneFor(line: ApiLine) {
  if (line === '7.22') return new MissingCredentialsError('Send the credentials as "Authorization: Basic …"');
  if (line === '7.4') return new InvalidRequestError('A JSON body with both "username" and "password" is required');
  return new MissingCredentialsError(
    'Send credentials as "Authorization: Basic …" or as {"username", "password"} in the body',
  );
}
