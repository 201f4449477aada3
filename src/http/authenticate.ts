import type { FastifyReply, FastifyRequest } from 'fastify';
import { holds, isPermission, type Permission } from '../access/permissions.js';
import { parseAuthorization, plainBasic, plainToken } from '../auth/credentials.js';
import type { Principal } from '../auth/principal.js';
import { BasicAuthDisabledError, ForbiddenError, InvalidRequestError, MissingCredentialsError } from '../errors.js';
import { contextOf } from './request-context.js';
import { certificateSource } from './client-certificate.js';
import { highest } from '../access/management.js';
import type { TesseraApp } from './tessera-app.js';

/**
 * What a route of the API needs, declared in its `config.access`:
 * - 'public': nothing (the login itself, the password rules);
 * - 'optional': credentials when the request has an Authorization header (password changes);
 * - 'token': a token, not a password (refresh, logout);
 * - 'caller': any credentials;
 * - a permission of access/permissions.ts: credentials whose rights hold it.
 */
export type Access = 'public' | 'optional' | 'token' | 'caller' | Permission;

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    principal?: Principal;
  }
}

/**
 * The one place that decides who is calling and whether they may: every route of the scope
 * declares its access (a route without one fails at start), and one hook reads the
 * Authorization header once, asks for a principal (a token's claims, or a password
 * verified like any login: throttling, lockout) and checks the declared permission
 * before the handler runs. Handlers read `request.principal`.
 */
export function authenticateRequests(app: TesseraApp): void {
  const { auth, policy, config } = app.tessera;
  const clientCertificate = certificateSource(config);
  app.decorateRequest('principal', undefined);
  app.addHook('onRoute', (route) => {
    const access = route.config?.access;
    if (access === undefined) throw new Error(`${route.method} ${route.url} declares no access (config.access)`);
    // The OpenAPI document says what each operation needs (and a test checks it against live answers).
    if (route.schema && !route.schema.hide) (route.schema as Record<string, unknown>)['x-access'] = access;
    // A hook of the route's own, closed over its access: nothing to look up on every request,
    // and no hook at all where nothing is needed.
    if (access === 'public') return;
    const check = (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
      const known = knownPrincipal(request, access);
      if (known) {
        request.principal = known;
        return done();
      }
      principalFor(request, access).then((principal) => {
        request.principal = principal;
        done();
      }, done);
    };
    route.preValidation = [...[route.preValidation ?? []].flat(), check];
  });

  /**
   * The hot path, without waiting: a token verified before, or Basic credentials verified a
   * short while ago, of a user whose tokens this process knows are current, with the right.
   * Anything else (undefined) takes principalFor, which decides and says why.
   */
  function knownPrincipal(request: FastifyRequest, access: Exclude<Access, 'public'>): Principal | undefined {
    const principal = knownCaller(request.headers.authorization, access);
    return principal && (!isPermission(access) || holds(principal.rights, access)) ? principal : undefined;
  }

  function knownCaller(header: string | undefined, access: Exclude<Access, 'public'>): Principal | undefined {
    const token = plainToken(header);
    if (token) return auth.knownToken(token);
    if (access === 'token' || !policy.fresh()?.control_plane_basic_authentication) return undefined;
    const credentials = plainBasic(header);
    return credentials && auth.knownPassword(credentials);
  }

  async function principalFor(request: FastifyRequest, access: Exclude<Access, 'public'>): Promise<Principal | undefined> {
    const header = request.headers.authorization;
    if (!header) {
      // No Authorization header: a client certificate, when one was presented (explicit credentials
      // win over it). Not where a token is the point (refresh, logout): there is none to renew or end.
      const presented = access === 'token' ? undefined : clientCertificate(request);
      const user = presented && (await auth.certificateUser(presented, contextOf(request)));
      if (user) {
        const principal: Principal = { uid: user.uid, username: user.username, role: highest(user.rights), rights: user.rights, via: 'certificate' };
        if (isPermission(access) && !holds(principal.rights, access)) throw new ForbiddenError();
        return principal;
      }
      if (access === 'optional') return undefined;
      throw new MissingCredentialsError();
    }
    const presented = parseAuthorization(header);
    let principal: Principal;
    if (presented.kind === 'token') {
      principal = await auth.checkToken(presented.token);
    } else {
      // There is no token to end or renew; a 200 would claim something that did not happen.
      if (access === 'token') throw new InvalidRequestError('This path takes a token: present it as "Authorization: JWT <token>" or "Bearer <token>"');
      if (!(await policy.get()).control_plane_basic_authentication) throw new BasicAuthDisabledError();
      principal = await auth.passwordPrincipal(presented.credentials, contextOf(request));
    }
    if (isPermission(access) && !holds(principal.rights, access)) throw new ForbiddenError();
    return principal;
  }
}

/** The principal of a route that requires credentials (set by the hook before the handler). */
export function callerOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new MissingCredentialsError();
  return request.principal;
}
