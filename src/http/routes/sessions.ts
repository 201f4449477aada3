import Type from 'typebox';
import { toSessionOfUserView, toSessionView } from '../../sessions/session.js';
import { callerOf } from '../authenticate.js';
import { contextOf } from '../request-context.js';
import { CALLER, Ok, UidParams } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

const SessionView = Type.Object({
  sid: Type.String({ description: 'the id its tokens carry as "sid"' }),
  uid: Type.Integer(),
  realm: Type.String({ description: 'how it logged in: local, ldap, certificate, sso, api_key' }),
  client_ip: Type.String(),
  user_agent: Type.String(),
  console: Type.Boolean({
    description: "the web console's: ended by the server after cm_session_timeout_minutes without a request",
  }),
  started: Type.String({ description: 'the login, ISO 8601' }),
  last_refreshed: Type.String({ description: 'the last refresh_jwt (the login until then)' }),
  last_seen: Type.String({ description: "a console session's last request, within 15 s; else its last refresh" }),
  expires: Type.String({
    description:
      "no token of it lives past it: login + session_max_lifetime_minutes (or the login token's ttl when longer); refresh_jwt issues none past login + session_max_lifetime_minutes",
  }),
  current: Type.Boolean({ description: 'the request that lists it carries one of its tokens' }),
  api_key_id: Type.Optional(
    Type.String({ description: "the API key its login presented: its tokens have that key's rights, and end with it" }),
  ),
});
const SessionOfUserView = Type.Object(
  {
    ...SessionView.properties,
    name: Type.String({ description: 'the user\'s name; "" when it has none' }),
    email: Type.String({ description: 'the user\'s email; "" when it has none' }),
  },
  { description: 'a live session, and whose it is' },
);
const EveryQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.String({
        pattern: '^(10000|[1-9][0-9]{0,3})$',
        description: 'at most this many sessions, 1 to 10000 (default 1000): the latest seen',
      }),
    ),
  },
  { additionalProperties: false },
);
const Ended = Type.Object({ ended: Type.Integer({ description: 'sessions ended' }) });
const SessionParams = Type.Object({
  ...UidParams.properties,
  sid: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'a session id' }),
});

/**
 * A user's sessions (one for each login, with its refreshes): listed by who may see the user (itself,
 * view_user_info), ended one or all by the user itself or who may manage it; every user's
 * listed at once by who may list every user; every session of the cluster ended by an admin.
 * An ended session's tokens are refused here at once and on other nodes within their poll of
 * the revocation events (half a second), and cannot be refreshed.
 */
export function sessionsRoutes(app: TesseraApp, { sessions }: Pick<HttpServices, 'sessions'>): void {
  const doc = { tags: ['sessions'], security: CALLER };
  app.get(
    '/v1/users/:uid/sessions',
    {
      config: { access: 'caller', errors: ['forbidden', 'user_not_found'] },
      schema: {
        ...doc,
        summary: "A user's live sessions, newest first (yourself, or view_user_info)",
        params: UidParams,
        response: { 200: Type.Array(SessionView) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      return (await sessions.list(caller, Number(request.params.uid))).map((s) => toSessionView(s, caller.token?.sid));
    },
  );
  app.delete(
    '/v1/users/:uid/sessions/:sid',
    {
      config: {
        access: 'caller',
        endsAccess: true,
        errors: ['session_not_found', 'unauthorized_action', 'forbidden', 'user_not_found'],
      },
      schema: {
        ...doc,
        summary: 'End one session: its tokens are refused and cannot be refreshed (yourself, or update_user)',
        params: SessionParams,
        response: { 200: Ok },
      },
    },
    async (request) => {
      await sessions.end(callerOf(request), Number(request.params.uid), request.params.sid, contextOf(request));
      return {};
    },
  );
  app.delete(
    '/v1/users/:uid/sessions',
    {
      config: {
        access: 'caller',
        endsAccess: true,
        errors: ['unauthorized_action', 'forbidden', 'user_not_found', 'session_not_found'],
      },
      schema: {
        ...doc,
        summary:
          'End every session of a user, without a password change: Basic credentials go on working (yourself, or update_user)',
        params: UidParams,
        response: { 200: Ended },
      },
    },
    async (request) => ({
      ended: await sessions.endAllOf(callerOf(request), Number(request.params.uid), contextOf(request)),
    }),
  );
  app.get(
    '/v1/sessions',
    {
      // What another user's sessions take is view_user_info (admin, user_manager): every user's take what the list of
      // every user takes (GET /v1/users), view_all_users_info, held by the same levels. A user_manager sees each user's
      // sessions one by one already; end_all_sessions (admin only) is for ending them all, not for seeing them.
      config: { access: 'view_all_users_info' },
      schema: {
        ...doc,
        summary:
          "Every user's live sessions, the latest seen first, each with the user's name and email (view_all_users_info: admin, user_manager)",
        querystring: EveryQuery,
        response: { 200: Type.Array(SessionOfUserView) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const limit = Number(request.query.limit ?? 1000);
      return (await sessions.listEvery(caller, limit)).map((s) => toSessionOfUserView(s, caller.token?.sid));
    },
  );
  app.delete(
    '/v1/sessions',
    {
      config: { access: 'end_all_sessions', endsAccess: true },
      schema: {
        ...doc,
        summary: 'End every session of every user: each logs in again (end_all_sessions: admin)',
        response: { 200: Ended },
      },
    },
    async (request) => ({ ended: await sessions.endEverySession(callerOf(request), contextOf(request)) }),
  );
}
