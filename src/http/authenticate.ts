import type { FastifyReply, FastifyRequest } from 'fastify';
import { holds, isPermission, type Permission } from '../access/permissions.js';
import { addressAllowed } from '../api-keys/allowed-cidrs.js';
import type { Presented } from '../auth/credentials.js';
import type { Principal } from '../auth/principal.js';
import { publicUrlOf } from '../config/config.js';
import {
  ApiKeyRefusedError,
  BasicAuthDisabledError,
  ForbiddenError,
  InvalidRequestError,
  MfaEnrolmentRequiredError,
  MissingCredentialsError,
} from '../errors.js';
import type { Policy } from '../policy/policy.js';
import { crossSiteGuard } from './cross-site.js';
import { presentedReader } from './presented.js';
import { contextOf } from './request-context.js';
import type { TesseraApp } from './tessera-app.js';

/**
 * What a route of the API needs, declared in its `config.access`:
 * - 'public': nothing (the login itself, the password rules);
 * - 'optional': credentials when the request has any (password changes);
 * - 'token': a token, not a password (refresh, logout);
 * - 'caller': any credentials;
 * - a permission of access/permissions.ts: credentials whose rights hold it.
 */
export type Access = 'public' | 'optional' | 'token' | 'caller' | Permission;

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
    /** Taken with a token for enrolling a second factor only (mfa_enrol), for its own user (the route's :uid, when it has one). */
    enrolment?: boolean;
  }
  interface FastifyRequest {
    principal?: Principal;
  }
}

/**
 * The one place that decides who is calling and whether they may: every route of the scope
 * declares its access (a route without one fails at start), and one hook reads what the
 * request presents once (a token, Basic credentials, a client certificate), asks who that
 * is — from what this process has loaded when it can, without waiting; else through the
 * realm chain's guards — and checks the declared permission before the handler runs.
 * Handlers read `request.principal`.
 */
export function authenticateRequests(app: TesseraApp): void {
  const { callers, policy, config } = app.services;
  const presentedOf = presentedReader(config);
  const sameSite = crossSiteGuard(publicUrlOf(config));
  app.decorateRequest('principal', undefined);
  app.addHook('onRoute', (route) => {
    const access = route.config?.access;
    if (access === undefined) throw new Error(`${route.method} ${route.url} declares no access (config.access)`);
    // The OpenAPI document says what each operation needs (and a test checks it against live answers).
    if (route.schema && !route.schema.hide) (route.schema as Record<string, unknown>)['x-access'] = access;
    // A hook of the route's own, closed over its access: nothing to look up on every request,
    // and no hook at all where nothing is needed.
    if (access === 'public') return;
    // Refresh and logout take a token: there is none to renew or end in a certificate.
    const certificates = access !== 'token';
    const permission = isPermission(access) ? access : undefined;
    const enrolment = route.config?.enrolment === true;
    const check = (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
      let presented: Presented | undefined;
      try {
        presented = presentedOf(request, certificates);
        sameSite(request, presented);
      } catch (err) {
        return done(err as Error);
      }
      const known = presented && knownPrincipal(request, presented, access, permission, enrolment);
      if (known) {
        request.principal = known;
        return done();
      }
      principalFor(request, presented, access, permission, enrolment).then((principal) => {
        request.principal = principal;
        done();
      }, done);
    };
    route.preValidation = [...[route.preValidation ?? []].flat(), check];
  });

  /** The hot path: who the credentials are, from what this process has loaded, with the right; else undefined (principalFor decides). */
  function knownPrincipal(
    request: FastifyRequest,
    presented: Presented,
    access: Exclude<Access, 'public'>,
    permission: Permission | undefined,
    enrolment: boolean,
  ): Principal | undefined {
    const rules = policy.fresh();
    if (!rules || presentedRefusal(presented, access, rules)) return undefined;
    const principal = callers.known(presented);
    return principal &&
      permits(permission, principal) &&
      !boundElsewhere(principal, request) &&
      !enrolmentRefusal(principal, request, enrolment)
      ? principal
      : undefined;
  }

  /** The same rules, with what is not loaded awaited: the principal, or the refusal that says why not. */
  async function principalFor(
    request: FastifyRequest,
    presented: Presented | undefined,
    access: Exclude<Access, 'public'>,
    permission: Permission | undefined,
    enrolment: boolean,
  ): Promise<Principal | undefined> {
    if (!presented) {
      if (access === 'optional') return undefined;
      throw new MissingCredentialsError();
    }
    const refusal = presentedRefusal(presented, access, await policy.get());
    if (refusal) throw refusal();
    let principal: Principal;
    try {
      principal = await callers.identify(presented, contextOf(request));
    } catch (err) {
      // A certificate where the cluster takes none is no credentials at all.
      if (access === 'optional' && presented.kind === 'certificate' && err instanceof MissingCredentialsError)
        return undefined;
      throw err;
    }
    const elsewhere = boundElsewhere(principal, request) ?? enrolmentRefusal(principal, request, enrolment);
    if (elsewhere) throw elsewhere();
    if (!permits(permission, principal)) throw new ForbiddenError();
    return principal;
  }
}

/**
 * The one rule of a token for enrolling a second factor only (a role requires one its user has
 * not got): taken by the routes that enrol, for its own user; refused everywhere else.
 */
function enrolmentRefusal(
  principal: Principal,
  request: FastifyRequest,
  enrolment: boolean,
): (() => Error) | undefined {
  if (principal.token?.mfa_enrol !== true) return undefined;
  const uid = (request.params as { uid?: string } | undefined)?.uid;
  if (enrolment && (uid === undefined || Number(uid) === principal.uid)) return undefined;
  return () => new MfaEnrolmentRequiredError();
}

/**
 * The one rule of a token got with an API key bound to some addresses (its `acidr`): taken from
 * those only, as the key is. The refusal to throw, or undefined.
 */
function boundElsewhere(principal: Principal, request: FastifyRequest): (() => Error) | undefined {
  const cidrs = principal.token?.acidr;
  if (cidrs === undefined || addressAllowed(cidrs, request.ip)) return undefined;
  return () =>
    new ApiKeyRefusedError(
      'api_key_address_refused',
      `This token was got with an API key (${principal.apiKeyId}) taken from some addresses only, not this one (${request.ip})`,
    );
}

/**
 * The one rule of what a route takes: a password (Basic credentials) not where a token is
 * needed (there is none to end or renew; a 200 would claim what did not happen), nor while the
 * cluster has Basic turned off; an API key not where a token is needed, and in Basic
 * credentials as they are (a Bearer key works with Basic off). The refusal to throw, or undefined.
 */
function presentedRefusal(
  presented: Presented,
  access: Exclude<Access, 'public'>,
  policy: Pick<Policy, 'control_plane_basic_authentication'>,
): (() => Error) | undefined {
  if (presented.kind === 'api_key' && access === 'token') return tokenRequired;
  if (presented.kind !== 'password' && !(presented.kind === 'api_key' && presented.basic)) return undefined;
  if (access === 'token') return tokenRequired;
  return policy.control_plane_basic_authentication ? undefined : basicOff;
}

const tokenRequired = () =>
  new InvalidRequestError('This path takes a token: present it as "Authorization: JWT <token>" or "Bearer <token>"');
const basicOff = () => new BasicAuthDisabledError();

/** The one rule of a route's permission: a route that names one needs a caller whose rights hold it. */
function permits(permission: Permission | undefined, principal: Principal): boolean {
  return permission === undefined || holds(principal.rights, permission);
}

/** The principal of a route that requires credentials (set by the hook before the handler). */
export function callerOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new MissingCredentialsError();
  return request.principal;
}
