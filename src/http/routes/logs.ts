import Type from 'typebox';
import { holds } from '../../access/permissions.js';
import { ForbiddenError, InvalidRequestError } from '../../errors.js';
import { withoutPeople } from '../../event-log/event-log.js';
import { instantOf } from '../../event-log/event-time.js';
import { eventTypeRefusal } from '../../event-log/event-types.js';
import { USERNAME_MAX_LENGTH, usernameKey } from '../../users/username.js';
import { callerOf } from '../authenticate.js';
import { CALLER, StringEnum } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

const Time = (what: string) =>
  Type.Optional(
    Type.String({
      maxLength: 40,
      description: `${what} (ISO 8601, like 2026-11-25T09:00:00Z; without a zone, UTC: 2026-11-25T09:00:00)`,
    }),
  );

/** A whole number in a query string (query strings are text). */
const Whole = (description: string) => Type.String({ pattern: '^[0-9]{1,9}$', description });

const Event = Type.Object(
  {
    time: Type.String({ description: 'when, ISO 8601 to the second' }),
    type: Type.String({
      description:
        "the product's names where it has one: cluster_updated, user_created, user_updated, user_deleted; otherwise the audit event: authorize, authenticate, lockout, role_update, sso_update, …",
    }),
    severity: StringEnum(['INFO', 'WARNING'] as const),
  },
  {
    additionalProperties: true,
    description:
      "and the record's fields: outcome, actor_uid, actor, uid, username, target, realm, reason, changes, ip, request_id — never a secret",
  },
);

/**
 * GET /v1/logs: the cluster's event log as the product serves it — every security event of
 * every node, by time (stime, etime, order, limit, offset), and by Tessera's own filters
 * (type; uid, user: events about or by a user, by its uid or by its name or email).
 */
export function logsRoute(
  app: TesseraApp,
  { eventLog, eventWriter }: Pick<HttpServices, 'eventLog' | 'eventWriter'>,
): void {
  app.get(
    '/v1/logs',
    {
      config: { access: 'view_logged_events', errors: ['invalid_request', 'forbidden'] },
      schema: {
        tags: ['cluster'],
        security: CALLER,
        summary:
          'The event log: who did what, when, on every node (view_logged_events: all but db_viewer, none, token_verifier; who may not list users — cluster_member, cluster_viewer, db_member — reads no names, uids or addresses)',
        querystring: Type.Object(
          {
            stime: Time('from'),
            etime: Time('until'),
            order: Type.Optional(
              Type.String({
                pattern: '^([aA][sS][cC]|[dD][eE][sS][cC])$',
                description: 'asc (default) or desc, in any case',
              }),
            ),
            limit: Type.Optional(Whole('at most this many events, 1 to 10000 (default 1000)')),
            offset: Type.Optional(
              Type.String({ pattern: '^[0-9]{1,6}$', description: 'skip this many first (at most 999999)' }),
            ),
            type: Type.Optional(
              Type.String({
                maxLength: 64,
                description:
                  "Tessera's: events of this type only (a type no event has, or the audit line's name of one the log names otherwise — policy_update, user_create — is 400 naming the log's)",
              }),
            ),
            uid: Type.Optional(
              Whole("Tessera's: events about this user or by it (another user's: only who may see users)"),
            ),
            user: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: USERNAME_MAX_LENGTH,
                description:
                  "Tessera's: events about or by the user that has this name or email now, in any case (by its uid; a deleted user's events and a refused login's typed name: filter by type and time). A name nobody has: []. Another user's: only who may see users",
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Array(Event) },
      },
    },
    async (request) => {
      const q = request.query;
      const [stime, etime] = [q.stime, q.etime].map((time) => {
        if (time === undefined) return undefined;
        const instant = instantOf(time);
        if (instant === undefined)
          throw new InvalidRequestError(`${time} is no time: give one like 2026-11-25T09:00:00Z`);
        return new Date(instant).toISOString();
      });
      const typeRefused = q.type === undefined ? undefined : eventTypeRefusal(q.type);
      if (typeRefused) throw new InvalidRequestError(typeRefused);
      await eventWriter.flush(); // this node's latest events too
      // Who may not see users (cluster_member, cluster_viewer, db_member) reads what happened, not to or by whom.
      const caller = callerOf(request);
      const seesPeople = holds(caller.rights, 'view_all_users_info');
      // Nor does it ask when a given user acted: filtering by another uid would tell it what the view leaves out.
      if (
        !seesPeople &&
        ((q.uid !== undefined && Number(q.uid) !== caller.uid) ||
          (q.user !== undefined && usernameKey(q.user) !== usernameKey(caller.username)))
      )
        throw new ForbiddenError('Only who may see users (admin, user_manager) filters events by another user');
      const events = await eventLog.query({
        ...(stime && { stime }),
        ...(etime && { etime }),
        ...(q.type && { type: q.type }),
        ...(q.uid && { uid: Number(q.uid) }),
        // Who may not see users gives its own name: its own uid, never a name's current holder
        // (a token outlives a rename, and the name may be another account's by now).
        ...(q.user !== undefined && (seesPeople ? { user: q.user } : { uid: caller.uid })),
        order: q.order?.toLowerCase() === 'desc' ? 'desc' : 'asc',
        limit: Math.min(Math.max(Number(q.limit ?? 1000), 1), 10_000),
        offset: Number(q.offset ?? 0),
      });
      return seesPeople ? events : events.map(withoutPeople);
    },
  );
}
