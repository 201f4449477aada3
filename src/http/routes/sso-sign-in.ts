import type { FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { DomainError, SsoRefusedError } from '../../errors.js';
import { TTL_DEFAULT_SECONDS } from '../../tokens/claims.js';
import { SIGN_IN_CODE_MS } from '../../sso/sso-sign-in.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';
import { callerOf } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { AccessToken, ANYONE, CALLER, TtlBody } from '../schemas.js';

/** The cookie that carries a sign-in's one-time code from the consumer to the console's exchange, and nowhere else. */
const COOKIE = 'tessera_sso';
const COOKIE_PATH = '/v1/sso';

/** Where the browser lands after a step: the console, told what happened by a code (never a secret, never a token). */
const toConsole = (reply: FastifyReply, query: string) => reply.header('cache-control', 'no-store').redirect(`/?${query}`, 303);

function codeOf(error: unknown): string {
  return error instanceof DomainError ? error.code : 'internal_error';
}

function cookie(request: FastifyRequest, value: string, maxAgeSeconds: number): string {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  return `${COOKIE}=${value}; Path=${COOKIE_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure}`;
}

function cookieOf(request: FastifyRequest): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === COOKIE) return value.join('=');
  }
  return undefined;
}

/**
 * The console's SSO sign-in (SP-initiated and IdP-initiated): the browser is sent to the
 * identity provider, comes back with its answer posted to the consumer (the product's
 * /cluster/sso/saml/acs), which checks it and hands the console a one-time code in an
 * HttpOnly, SameSite=Strict cookie that only POST /v1/sso/exchange reads; the console
 * exchanges it for a token it keeps in memory. Signing out ends the token and the session
 * at the identity provider (its answer comes back to /cluster/sso/saml/slo).
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
        summary: 'Whether the console offers SSO sign-in (and requires it of users who are not admins), and where it starts',
        response: { 200: Type.Object({ control_plane: Type.Boolean(), enforce_control_plane: Type.Boolean(), login_url: Type.String() }) },
      },
    },
    async () => {
      const { control_plane, enforce_control_plane } = await sso.get();
      return { control_plane, enforce_control_plane, login_url: '/cluster/sso/saml/login' };
    },
  );
  app.get('/cluster/sso/saml/login', { config: { access: 'public' }, schema: { hide: true } }, async (_request, reply) => {
    try {
      return reply.header('cache-control', 'no-store').redirect(await ssoSignIn.loginUrl(), 302);
    } catch (err) {
      return toConsole(reply, `sso_error=${codeOf(err)}`);
    }
  });
  app.post(
    '/cluster/sso/saml/acs',
    {
      config: { access: 'public', formBody: true },
      schema: { hide: true, body: Type.Object({ SAMLResponse: Type.String({ minLength: 1, maxLength: 1_048_576 }), RelayState: Type.Optional(Type.String({ maxLength: 1024 })) }) },
      // An answer of an identity provider is often tens of KiB: more than an API body.
      bodyLimit: 1_500_000,
      attachValidation: true,
    },
    async (request, reply) => {
      if (request.validationError) return toConsole(reply, 'sso_error=sso_refused');
      try {
        const code = await ssoSignIn.consume(request.body.SAMLResponse, contextOf(request));
        reply.header('set-cookie', cookie(request, code, SIGN_IN_CODE_MS / 1000));
        return toConsole(reply, 'sso=signed_in');
      } catch (err) {
        if (!(err instanceof DomainError)) request.log.error({ err }, 'an SSO sign-in failed');
        return toConsole(reply, `sso_error=${codeOf(err)}`);
      }
    },
  );
  app.post(
    '/v1/sso/exchange',
    {
      config: { access: 'public', errors: ['sso_refused', 'account_locked'] },
      schema: {
        ...doc,
        security: ANYONE,
        summary: 'The console\'s last step of an SSO sign-in: the one-time code of its cookie (HttpOnly, set by the consumer) for a token, once',
        body: TtlBody,
        response: { 200: AccessToken },
      },
    },
    async (request, reply) => {
      const code = cookieOf(request);
      reply.header('set-cookie', cookie(request, '', 0)).header('cache-control', 'no-store');
      if (!code) throw new SsoRefusedError('sso_refused', 'No SSO sign-in to take: sign in again', 'no sign-in cookie');
      return { access_token: await ssoSignIn.exchange(code, request.body.ttl ?? TTL_DEFAULT_SECONDS) };
    },
  );
  app.post(
    '/v1/sso/logout',
    {
      config: { access: 'token' },
      schema: {
        ...doc,
        security: CALLER.slice(0, 2),
        summary: 'Sign out: the token ends, and where it came from an SSO sign-in, the URL that ends the session at the identity provider',
        response: { 200: Type.Object({ logout_url: Type.Optional(Type.String({ description: 'where to send the browser (a signed LogoutRequest)' })) }) },
      },
    },
    async (request) => {
      const logoutUrl = await ssoSignIn.logout(callerOf(request), contextOf(request));
      return logoutUrl ? { logout_url: logoutUrl } : {};
    },
  );
  app.get(
    '/cluster/sso/saml/slo',
    { config: { access: 'public' }, schema: { hide: true, querystring: Type.Record(Type.String(), Type.String()) }, attachValidation: true },
    async (request, reply) => {
      const query = request.validationError ? {} : (request.query as Record<string, string>);
      if (typeof query.SAMLRequest === 'string') return toConsole(reply, 'sso_error=idp_logout_unsupported'); // as the product: SP-initiated logout only
      try {
        await ssoSignIn.verifyLogoutResponse(query, request.url.slice(request.url.indexOf('?') + 1));
        return toConsole(reply, 'sso=signed_out');
      } catch (err) {
        // Signed out here already (the token ended before the browser left); the IdP's answer is what failed.
        request.log.warn({ reason: err instanceof SsoRefusedError ? err.auditReason : codeOf(err) }, 'an identity provider\'s logout answer was refused');
        return toConsole(reply, 'sso_error=idp_logout_refused');
      }
    },
  );
}
