import type { Policy } from '../../policy/policy.js';
import type { User } from '../../users/user.js';
import { toUserView } from '../../users/user-view.js';
import { userSeenBy, viewUser } from '../../users/user-viewing.js';
import { callerOf } from '../authenticate.js';
import { CALLER, UidParams, UserView } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** GET /v1/users/{uid}: the user itself, or anyone for view_user_info. */
export function usersGetRoute(
  app: TesseraApp,
  { clock, policy, userReads }: Pick<HttpServices, 'clock' | 'policy' | 'userReads'>,
): void {
  const read = (uid: number) => userReads.get(uid);
  // The answer as JSON, made once for each user read (kept a second) and policy: a user's
  // status may then change a second late, as its other fields may.
  const answers = new WeakMap<User, { policy: Policy; json: string }>();
  const answerOf = (user: User, current: Policy) => {
    let answer = answers.get(user);
    if (answer?.policy !== current)
      answers.set(
        user,
        (answer = { policy: current, json: JSON.stringify(toUserView(user, current, new Date(clock()))) }),
      );
    return answer.json;
  };
  app.get(
    '/v1/users/:uid',
    {
      config: { access: 'caller', enrolment: true, errors: ['forbidden', 'user_not_found'] },
      schema: {
        tags: ['users'],
        summary: 'One user: yourself, or anyone for view_user_info (admin, user_manager)',
        security: CALLER,
        params: UidParams,
        response: { 200: UserView },
      },
    },
    (request, reply) => {
      const caller = callerOf(request);
      const uid = Number(request.params.uid);
      // Read within the second: answered without waiting (a token-protected read's hot path).
      const known = userReads.fresh(uid);
      const current = policy.fresh();
      if (known && current) {
        // Serialized already: sent as it is (the schema's serializer takes objects only).
        void reply.type(JSON_TYPE).send(answerOf(userSeenBy(caller, uid, known.user), current) as never);
        return;
      }
      return (async () => toUserView(await viewUser(caller, uid, read), await policy.get(), new Date(clock())))();
    },
  );
}
