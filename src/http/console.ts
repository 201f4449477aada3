import { existsSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** Where `npm run build` puts the console (src/console, built by Vite). */
export const CONSOLE_DIR = path.resolve(import.meta.dirname, '../../dist/console'); // from src/http and dist/http alike

/**
 * The console's policy: its own scripts and styles only, no inline script, API calls to
 * this origin only, never framed, forms post nowhere else.
 */
const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The web console at `/`: the built files (one route each, no wildcard, so that unknown
 * paths stay the API's JSON 404) and the settings the page needs, under strict headers.
 * The console has no powers of its own: it calls the API with the person's token.
 */
export async function consoleScope(app: FastifyInstance): Promise<void> {
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('content-security-policy', CONSOLE_CSP);
    reply.header('x-frame-options', 'DENY');
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    return payload;
  });
  const { policy } = app.services;
  app.get('/console-settings.json', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    // The cluster's cm_session_timeout_minutes (GET/PUT /v1/cluster), for the page before sign-in.
    return { idle_minutes: (await policy.get()).cm_session_timeout_minutes };
  });
  if (!existsSync(path.join(CONSOLE_DIR, 'index.html'))) {
    app.log.warn(`the web console is not built (no ${CONSOLE_DIR}/index.html): run npm run build`);
    return;
  }
  await app.register(fastifyStatic, {
    root: CONSOLE_DIR,
    wildcard: false,
    // Vite names assets by their content: they never change; the page itself always may.
    setHeaders: (reply, file) =>
      reply.header(
        'cache-control',
        file.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
      ),
  });
}
