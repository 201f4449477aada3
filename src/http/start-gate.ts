import { StartingError } from '../errors.js';
import type { TesseraApp } from './tessera-app.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Answered while the process is starting (liveness): every other route waits for `started`. */
    whileStarting?: boolean;
  }
}

/**
 * The port is bound before the first admin is made (so that a taken port fails the start
 * before a password is generated), and a client may call the moment it accepts — a deploy
 * script, a health check. Until `started()`, every request but the liveness probe answers
 * 503 `starting` with Retry-After, never a 401 that would count toward the admin's lockout.
 */
export function gateUntilStarted(app: TesseraApp, started: () => boolean): void {
  let open = false;
  app.addHook('onRequest', (request, _reply, done) => {
    if (open || (open = started()) || request.routeOptions.config.whileStarting) return done();
    done(new StartingError());
  });
}
