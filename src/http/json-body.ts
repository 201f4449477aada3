import type { FastifyInstance } from 'fastify';

/**
 * The body is JSON whatever the Content-Type says (curl -d sends a form type), but on routes
 * with `config: { formBody: true }`, where a form body is read as its fields. No body and
 * an empty body both read as `{}`, so that routes whose body is optional see "no fields".
 * Parsing is Fastify's safe parser: __proto__ and constructor keys are refused.
 */
export function acceptJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, {});
    // A route made for OAuth clients (RFC 7662) also takes the form they send.
    const form =
      /^application\/x-www-form-urlencoded/i.test(request.headers['content-type'] ?? '') && !/^\s*[{[]/.test(text);
    if (form && (request.routeOptions.config as { formBody?: boolean } | undefined)?.formBody) {
      return done(null, Object.fromEntries(new URLSearchParams(text)));
    }
    parseJson(request, text, done);
  });
  // Only routes that take a body pay for this.
  app.addHook('onRoute', (route) => {
    if (!route.schema?.body) return;
    const hooks = [route.preValidation ?? []].flat();
    route.preValidation = [
      (request, _reply, done) => {
        if (request.body === undefined) request.body = {};
        done();
      },
      ...hooks,
    ];
  });
}
