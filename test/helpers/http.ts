import type { TestTessera } from './test-tessera.js';

export interface Call {
  status: number;
  body: any;
  headers: Record<string, unknown>;
}

/** A JSON request through the in-process app; `auth` is a full Authorization value. */
export async function call(
  t: TestTessera,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  opts: { auth?: string; body?: unknown } = {},
): Promise<Call> {
  const res = await t.app.inject({
    method,
    url,
    headers: opts.auth ? { authorization: opts.auth } : {},
    payload: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  return { status: res.statusCode, body: res.body ? res.json() : undefined, headers: res.headers };
}

/** Logs in through the API and returns "JWT <token>". */
export async function login(t: TestTessera, username: string, password: string): Promise<string> {
  const res = await call(t, 'POST', '/v1/users/authorize', { body: { username, password } });
  if (res.status !== 200) throw new Error(`login of ${username} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return `JWT ${res.body.access_token}`;
}
