import type { FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { SIGN_IN_CODE_MS } from '../../auth/sso-sign-in.js';
import { DomainError, SsoConfirmError, SsoRefusedError } from '../../errors.js';
import { REQUEST_MS } from '../../sso/service-provider.js';
import { EARLIER_SP_PATHS, SP_PATHS, type SpPaths } from '../../sso/sso-config.js';
import { TTL_DEFAULT_SECONDS } from '../../tokens/claims.js';
import { callerOf } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { AccessToken, ANYONE, CALLER, TtlBody } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

/** The cookie that carries a sign-in's one-time code from the consumer to the console's exchange, and nowhere else. */
const COOKIE = 'tessera_sso';
/** The cookie of the browser that started a sign-in: its nonce, which the exchange must show for an answer to its request. */
const START_COOKIE = 'tessera_sso_start';
const COOKIE_PATH = '/v1/sso';

/** Where the browser lands after a step: the console, told what happened by a code (never a secret, never a token). */
const toConsole = (reply: FastifyReply, query: string) =>
  reply.header('cache-control', 'no-store').redirect(`/?${query}`, 303);

function codeOf(error: unknown): string {
  return error instanceof DomainError ? error.code : 'internal_error';
}

/** Secure whenever the browser reaches the cluster over HTTPS: this listener's, or the address of a proxy in front of it. */
function cookie(request: FastifyRequest, address: string, name: string, value: string, maxAgeSeconds: number): string {
  const secure = request.protocol === 'https' || address.startsWith('https:') ? '; Secure' : '';
  return `${name}=${value}; Path=${COOKIE_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure}`;
}

function cookieOf(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

/**
 * The console's SSO sign-in (SP-initiated and IdP-initiated): the browser is sent to the
 * identity provider, comes back with its answer posted to the consumer (the product's
 * /v1/cluster/sso/saml/acs), which checks it and hands the console a one-time code in an
 * HttpOnly, SameSite=Strict cookie that only POST /v1/sso/exchange reads; the console
 * exchanges it for a token it keeps in memory. Signing out ends the token and the session
 * at the identity provider (its answer comes back to /v1/cluster/sso/saml/slo). The earlier
 * paths (/cluster/sso/saml/…, which identity providers set up before post to) answer the same.
 */
export function ssoSignInRoutes(app: TesseraApp, { ssoSignIn, sso }: Pick<HttpServices, 'ssoSignIn' | 'sso'>): void {
  const doc = { tags: ['sso'] };
  app.get(
    '/v1/sso',
    {
      config: { access: 'public' },
      schema: {
        ...doc,
        security: ANYONE,
        summary:
          'Whether the console offers SSO sign-in (and requires it of users who are not admins), and where it starts',
        response: {
          200: Type.Object({
            control_plane: Type.Boolean(),
            enforce_control_plane: Type.Boolean(),
            login_url: Type.String(),
          }),
        },
      },
    },
    async () => {
      const { control_plane, enforce_control_plane } = await sso.get();
      return { control_plane, enforce_control_plane, login_url: SP_PATHS.login };
    },
  );
  const addressOf = async () => (await sso.get()).service.address;
  for (const paths of [SP_PATHS, EARLIER_SP_PATHS]) serviceProviderRoutes(app, paths, ssoSignIn, addressOf);
  app.post(
    '/v1/sso/exchange',
    {
      config: { access: 'public', signIn: true, errors: ['sso_refused', 'sso_confirm', 'account_locked'] },
      schema: {
        ...doc,
        security: ANYONE,
        summary:
          "The console's last step of an SSO sign-in: the one-time code of its cookie (HttpOnly, set by the consumer) for a token, once, in the browser that asked for the sign-in; " +
          'one that nobody asked for (IdP-initiated) answers 409 sso_confirm, naming the account, until sent again with confirm: true',
        body: Type.Object(
          {
            ...TtlBody.properties,
            confirm: Type.Optional(
              Type.Boolean({ description: 'the person confirmed an IdP-initiated sign-in as the account named' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: AccessToken },
      },
    },
    async (request, reply) => {
      const address = await addressOf();
      const clear = (name: string) => cookie(request, address, name, '', 0);
      reply.header('cache-control', 'no-store');
      const code = cookieOf(request, COOKIE);
      try {
        if (!code)
          throw new SsoRefusedError('sso_refused', 'No SSO sign-in to take: sign in again', 'no sign-in cookie');
        const token = await ssoSignIn.exchange(
          code,
          cookieOf(request, START_COOKIE),
          request.body.confirm === true,
          request.body.ttl ?? TTL_DEFAULT_SECONDS,
          contextOf(request),
        );
        reply.header('set-cookie', [clear(COOKIE), clear(START_COOKIE)]);
        return { access_token: token };
      } catch (err) {
        if (!(err instanceof SsoConfirmError)) reply.header('set-cookie', clear(COOKIE)); // kept for the confirmation
        throw err;
      }
    },
  );
  app.post(
    '/v1/sso/logout',
    {
      config: { access: 'token', endsAccess: true },
      schema: {
        ...doc,
        security: CALLER.slice(0, 2),
        summary:
          'Sign out: the token ends, and where it came from an SSO sign-in, the URL that ends the session at the identity provider',
        response: {
          200: Type.Object({
            logout_url: Type.Optional(
              Type.String({ description: 'where to send the browser (a signed LogoutRequest)' }),
            ),
          }),
        },
      },
    },
    async (request) => {
      const logoutUrl = await ssoSignIn.logout(callerOf(request), contextOf(request));
      return logoutUrl ? { logout_url: logoutUrl } : {};
    },
  );
}

/** The service provider's browser steps at one set of paths: the sign-in's start, the consumer, the logout answer. */
function serviceProviderRoutes(
  app: TesseraApp,
  paths: SpPaths,
  ssoSignIn: HttpServices['ssoSignIn'],
  addressOf: () => Promise<string>,
): void {
  app.get(paths.login, { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    try {
      const { url, nonce } = await ssoSignIn.start(contextOf(request));
      reply.header('set-cookie', cookie(request, await addressOf(), START_COOKIE, nonce, REQUEST_MS / 1000));
      return reply.header('cache-control', 'no-store').redirect(url, 302);
    } catch (err) {
      return toConsole(reply, `sso_error=${codeOf(err)}`);
    }
  });
  app.post(
    paths.acs,
    {
      config: { access: 'public', formBody: true, signIn: true },
      schema: {
        hide: true,
        body: Type.Object({
          SAMLResponse: Type.String({ minLength: 1, maxLength: 262_144 }),
          RelayState: Type.Optional(Type.String({ maxLength: 1024 })),
        }),
      },
      // An answer of an identity provider is often tens of KiB: more than an API body, far less than this.
      bodyLimit: 300_000,
      attachValidation: true,
    },
    async (request, reply) => {
      if (request.validationError) return toConsole(reply, 'sso_error=sso_refused');
      try {
        // Checked against this consumer's URL: an answer addressed to the other one is refused here.
        const code = await ssoSignIn.consume(request.body.SAMLResponse, paths.acs, contextOf(request));
        reply.header('set-cookie', cookie(request, await addressOf(), COOKIE, code, SIGN_IN_CODE_MS / 1000));
        return toConsole(reply, 'sso=signed_in');
      } catch (err) {
        if (!(err instanceof DomainError)) request.log.error({ err }, 'an SSO sign-in failed');
        return toConsole(reply, `sso_error=${codeOf(err)}`);
      }
    },
  );
  app.get(
    paths.slo,
    {
      config: { access: 'public' },
      schema: { hide: true, querystring: Type.Record(Type.String(), Type.String()) },
      attachValidation: true,
    },
    async (request, reply) => {
      const query = request.validationError ? {} : (request.query as Record<string, string>);
      if (typeof query.SAMLRequest === 'string') return toConsole(reply, 'sso_error=idp_logout_unsupported'); // as the product: SP-initiated logout only
      try {
        await ssoSignIn.verifyLogoutResponse(query, request.url.slice(request.url.indexOf('?') + 1));
        return toConsole(reply, 'sso=signed_out');
      } catch (err) {
        // Signed out here already (the token ended before the browser left); the IdP's answer is what failed.
        request.log.warn(
          { reason: err instanceof SsoRefusedError ? err.auditReason : codeOf(err) },
          "an identity provider's logout answer was refused",
        );
        return toConsole(reply, 'sso_error=idp_logout_refused');
      }
    },
  );
}
