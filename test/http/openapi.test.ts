import { Validator } from '@seriousme/openapi-schema-validator';
import type { RouteOptions } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { call } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

let t: TestTessera;
afterEach(() => t?.close());

type Operation = {
  tags?: string[];
  summary?: string;
  security?: Record<string, string[]>[];
  requestBody?: {
    required: boolean;
    content: Record<string, { schema: any; examples?: Record<string, { value: unknown }> }>;
  };
  responses: Record<string, { content?: Record<string, { schema: any }> }>;
};
type Document = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { type: string; scheme?: string; name?: string }> };
};

async function fetchDocument(): Promise<Document> {
  const res = await call(t, 'GET', '/v1/openapi.json');
  expect(res.status).toBe(200);
  return res.body;
}

const operations = (doc: Document) =>
  Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })));

describe('GET /v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    t = await testTessera();
    const doc = await fetchDocument();
    expect(doc.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists exactly the routes Fastify serves (but for HEAD, the 405 answers and the reference page)', async () => {
    const dataDir = (t = await testTessera()).dataDir;
    // A second app on the same Tessera, to see every route as it is added.
    const app = buildApp(t.tessera);
    const routes: RouteOptions[] = [];
    app.addHook('onRoute', (route) => void routes.push(route as RouteOptions));
    await app.ready();
    const served = new Set(
      routes
        .filter((r) => !(r.schema as { hide?: boolean } | undefined)?.hide)
        .flatMap((r) => [r.method].flat().map((m) => `${m} ${r.url.replace(/:(\w+)/g, '{$1}')}`))
        .filter((route) => !route.startsWith('HEAD ')),
    );
    const documented = new Set(
      operations(app.swagger() as unknown as Document).map(({ path, method }) => `${method.toUpperCase()} ${path}`),
    );
    expect([...documented].sort()).toEqual([...served].sort());
    expect(served.size).toBeGreaterThan(20);
    expect([...served].some((r) => r.startsWith('GET /docs'))).toBe(false);
    await app.close();
    expect(dataDir).toBeTruthy();
  });

  it('describes every operation: tag, summary, security, a 200 with its schema, and each error status with its codes (no ranges)', async () => {
    t = await testTessera();
    const doc = await fetchDocument();
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['basic', 'bearer', 'jwt']);
    expect(doc.components.securitySchemes.jwt).toMatchObject({ type: 'apiKey', name: 'Authorization' });
    for (const { path, method, op } of operations(doc)) {
      const where = `${method} ${path}`;
      expect(op.tags?.length, where).toBe(1);
      expect(op.summary, where).toBeTruthy();
      expect(op.security, where).toBeDefined();
      const ok = op.responses['200']?.content; // JSON, or the SAML metadata's own type
      expect(ok?.['application/json']?.schema ?? ok?.['application/samlmetadata+xml']?.schema, where).toBeDefined();
      expect(
        Object.keys(op.responses).filter((s) => /XX|default/i.test(s)),
        where,
      ).toEqual([]);
      for (const [status, answer] of Object.entries(op.responses).filter(([s]) => Number(s) >= 400)) {
        const schema = answer.content?.['application/json']?.schema;
        expect(schema?.required, `${where} ${status}`).toEqual(['error_code', 'message']);
        expect(schema?.properties.error_code.enum.length, `${where} ${status}`).toBeGreaterThan(0);
      }
      expect(op.responses['500'], where).toBeDefined();
    }
    const codes = (path: string, method: string, status: string) =>
      doc.paths[path]![method]!.responses[status]!.content!['application/json']!.schema.properties.error_code.enum;
    // What a route's access, its input and its own logic can answer, each where it belongs.
    expect(codes('/v1/users/{uid}', 'delete', '403')).toEqual([
      'cross_site_request',
      'forbidden',
      'mfa_enrolment_required',
      'unauthorized_action',
    ]);
    expect(codes('/v1/users/{uid}', 'delete', '406')).toEqual(['delete_last_admin_not_allowed']);
    expect(codes('/v1/users', 'post', '409')).toEqual(['email_already_exists', 'name_already_exists']);
    expect(codes('/v1/users/authorize', 'post', '401')).toEqual([
      'account_locked',
      'api_key_address_refused',
      'api_key_expired',
      'certificate_expired',
      'certificate_not_yet_valid',
      'certificate_required',
      'certificate_subject_unknown',
      'certificate_untrusted',
      'invalid_api_key',
      'invalid_credentials',
      'mfa_required',
      'missing_credentials',
      'password_expired',
      'sso_required',
    ]);
    expect(codes('/v1/roles/{uid}', 'delete', '406')).toEqual(['delete_builtin_role_not_allowed', 'role_in_use']);
    expect(codes('/v1/users/authorize', 'post', '403')).toEqual(['cross_site_request']); // Basic or a certificate from a page of another site
    expect(codes('/readyz', 'get', '503')).toEqual(['not_ready', 'starting']);
    expect(doc.paths['/healthz']!.get!.responses['503']).toBeUndefined(); // alive while starting too
  });

  it('shows authorize in both wire formats, roles and statuses as enums, and which routes need a caller', async () => {
    t = await testTessera();
    const doc = await fetchDocument();
    const authorize = doc.paths['/v1/users/authorize']!.post!;
    const media = authorize.requestBody!.content['application/json']!;
    expect(authorize.requestBody!.required).toBe(false); // 7.22 may send no body
    expect(Object.keys(media.examples!)).toEqual(['7.22', '7.4']);
    expect(media.examples!['7.4']!.value).toMatchObject({ username: expect.any(String), password: expect.any(String) });
    expect(authorize.security).toEqual([{ basic: [] }, {}]);

    const user = doc.paths['/v1/users/{uid}']!.get!.responses['200']!.content!['application/json']!.schema;
    expect(user.properties.role.enum).toContain('user_manager');
    expect(user.properties.status.enum).toEqual(['active', 'locked', 'password_expired']);
    expect(
      doc.paths['/v1/users']!.post!.requestBody!.content['application/json']!.schema.properties.role.enum,
    ).toContain('admin');
    expect(doc.paths['/v1/users']!.get!.security).toEqual([{ jwt: [] }, { bearer: [] }, { basic: [] }]);
    expect(doc.paths['/healthz']!.get!.security).toEqual([]);
    expect(doc.paths['/.well-known/jwks.json']!.get!.responses['304']).toBeDefined();
    expect(doc.paths['/v1/users/{uid}']!.get!.responses['200']).toBeDefined();
  });

  it('checks what the route tests receive: an answer the document does not describe fails the test', async () => {
    t = await testTessera();
    t.app.get('/v1/teapot', { schema: { tags: ['operations'], summary: 'test only' } }, async (_r, reply) =>
      reply.code(418).send({ error_code: 'teapot', message: 'short and stout' }),
    );
    expect((await call(t, 'GET', '/v1/teapot')).status).toBe(418);
    await expect(t.close()).rejects.toThrow(/GET \/v1\/teapot → 418: not in the document/);
    t = undefined as unknown as TestTessera;
  });
});

describe('GET /docs', () => {
  it('serves the reference page and all of its assets from this process, under a strict CSP', async () => {
    t = await testTessera();
    const page = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/https?:|upgrade-insecure-requests/);
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(3);
    for (const asset of assets) {
      expect(asset).not.toMatch(/^(https?:)?\/\//);
      const res = await t.app.inject({ method: 'GET', url: new URL(asset, 'http://x/docs/').pathname });
      expect(res.statusCode, asset).toBe(200);
    }
    // The page's policy is the page's: API answers do not carry it.
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).headers['content-security-policy']).toBeUndefined();
    const init = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(init.body).not.toMatch(/["'`]https?:\/\//); // no address of another origin (a comment names one)
  });
});
