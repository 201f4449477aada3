import Type from 'typebox';
import { CALLER } from '../schemas.js';
import type { HttpServices } from '../services.js';
import type { TesseraApp } from '../tessera-app.js';

/** Events a page; a reader whose page comes back full asks again at once. */
const PAGE = 1000;

const Event = Type.Union([
  Type.Object({ type: Type.Literal('token'), jti: Type.String(), exp: Type.Integer() }),
  Type.Object({ type: Type.Literal('user'), uid: Type.Integer(), ver: Type.Union([Type.Integer(), Type.Null()]) }),
  Type.Object({ type: Type.Literal('session'), sid: Type.String(), exp: Type.Integer() }),
]);
const Feed = Type.Object({ cursor: Type.String(), more: Type.Boolean(), events: Type.Array(Event) });

/**
 * GET /v1/revocations?after=CURSOR: what services that verify tokens themselves must stop
 * accepting, in order. `token`: the token with this `jti` (until its `exp`). `user`: every
 * token of `uid` whose `ver` is below this one, or all of them when `ver` is null (the
 * user is gone). `session`: every token whose `sid` is this one (until `exp`). Without
 * `after`, every revocation that still matters (a day of them).
 * For the token_verifier role (and admins).
 */
export function revocationsRoute(app: TesseraApp, { revocationFeed }: Pick<HttpServices, 'revocationFeed'>): void {
  const schema = {
    tags: ['verification'],
    summary: 'What services that verify tokens themselves must stop accepting (token_verifier or admin)',
    security: CALLER,
    querystring: Type.Object({
      after: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$', description: 'a cursor from an earlier answer' })),
    }),
    response: { 200: Feed },
  };
  app.get('/v1/revocations', { config: { access: 'verify_tokens' }, schema }, async (request) => {
    const after = Number(request.query.after ?? 0);
    const rows = await revocationFeed.feedAfter(after, PAGE);
    return {
      cursor: String(rows.at(-1)?.id ?? after),
      more: rows.length === PAGE,
      events: rows.map((r) => {
        const exp = Math.floor((r.expiresAt?.getTime() ?? 0) / 1000);
        if (r.jti !== null) return { type: 'token' as const, jti: r.jti, exp };
        if (r.sid !== null) return { type: 'session' as const, sid: r.sid, exp };
        return { type: 'user' as const, uid: r.uid!, ver: r.epoch };
      }),
    };
  });
}
