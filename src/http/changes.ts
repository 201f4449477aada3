import type { RouteOptions } from 'fastify';
import { atomically } from '../unit-of-work.js';
import type { TesseraApp } from './tessera-app.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A sign-in (a login, its second step, a refresh, an introspection): not a change, never refused by blocking auditing. */
    signIn?: boolean;
    /** Ends access (a logout, a session ended): a change that blocking auditing never refuses. */
    endsAccess?: boolean;
    /** The auditing settings themselves: the way out of blocking mode (another sink, best_effort) is never refused by it. */
    unblocksAuditing?: boolean;
  }
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

type RouteShape = Pick<RouteOptions, 'method' | 'config'>;

/** A request that changes something: anything but a read or a sign-in. */
const isChange = (route: RouteShape) => ![route.method].flat().every((m) => READS.has(m)) && !route.config?.signIn;

/** A change that blocking auditing may refuse (503 audit_backlog_full). */
export const waitsForAuditing = (route: RouteShape) =>
  isChange(route) && !route.config?.endsAccess && !route.config?.unblocksAuditing;

/**
 * Every request of the scope that changes something runs as one unit of work: its writes and the
 * events it records commit together or not at all, before it is answered (src/unit-of-work.ts).
 * In blocking auditing mode, a change waits (503 audit_backlog_full) while a SIEM sink is behind
 * by its bound — but never a sign-in, a logout or the end of a session (refusing those would keep
 * the operators out or an intruder in), the enrolment of a second factor by a token for that alone, nor a
 * change of the auditing settings (the way out: another sink, or best_effort).
 */
export function changesAsUnits(app: TesseraApp): void {
  const { siem } = app.services;
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!isChange(route)) return;
    const handler = route.handler;
    const mayWait = waitsForAuditing(route);
    // A token for enrolling alone (the second factor its sign-in needs) never waits on an enrolment route.
    const enrolment = route.config?.enrolment === true;
    route.handler = async function (request, reply) {
      if (mayWait && !(enrolment && request.principal?.token?.mfa_enrol)) {
        const refusal = await siem.changeRefusal();
        if (refusal) throw refusal;
      }
      return atomically(async () => handler.call(this, request, reply));
    };
  });
}
