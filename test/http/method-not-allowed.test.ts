import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/http.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

describe('a known path with a method it does not take', () => {
  let t: TestTessera;
  beforeAll(async () => {
    t = await testTessera();
  });
  afterAll(() => t.close());

  const cases: ['GET' | 'POST' | 'PUT' | 'DELETE', string, string][] = [
    ['GET', '/v1/users/authorize', 'POST'], // not GET /v1/users/:uid with uid "authorize"
    ['GET', '/v1/users/password', 'POST, PUT, DELETE'],
    ['DELETE', '/v1/users', 'GET, HEAD, POST'],
    ['POST', '/v1/users/7', 'GET, HEAD, PUT, DELETE'],
    ['DELETE', '/healthz', 'GET, HEAD'],
  ];
  for (const [method, url, allow] of cases) {
    it(`answers ${method} ${url} with 405 and Allow: ${allow}`, async () => {
      const res = await call(t, method, url);
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe(allow);
      expect(res.body).toEqual({ error_code: 'method_not_allowed', message: `This path takes ${allow}` });
    });
  }

  it('answers GET /metrics on the API with where the metrics are (the management listener)', async () => {
    const res = await call(t, 'GET', '/metrics');
    expect([res.status, res.body.error_code]).toEqual([404, 'not_found']);
    expect(res.body.message).toMatch(
      /\/metrics is served by the management listener(, http:\/\/\S+\/metrics|, which is off)/,
    );
  });

  it('still answers an unknown path with 404', async () => {
    const res = await call(t, 'GET', '/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body.error_code).toBe('not_found');
  });
});
