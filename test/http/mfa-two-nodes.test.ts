/**
 * A second factor on two nodes over one PostgreSQL and one Redis: a login's second step on
 * another node than its first, and each code — an authenticator app's, a recovery code — taken
 * once across both.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLI_CONTEXT } from '../../src/audit/audit-log.js';
import { codeAt } from '../../src/mfa/totp.js';
import { call, login } from '../helpers/http.js';
import { freshPostgres, freshRedisPrefix, REDIS_URL } from '../helpers/services.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

let pg: { url: string; drop(): Promise<void> };
let a: TestTessera;
let b: TestTessera;
let ops: number;
let secret: string;
let recovery: string[];
const PASSWORD = 'ops-password-1';

beforeAll(async () => {
  pg = await freshPostgres();
  const shared = { databaseUrl: pg.url, redisUrl: REDIS_URL, redisKeyPrefix: freshRedisPrefix() };
  a = await testTessera(shared);
  b = await testTessera(shared);
  ops = (await a.tessera.userCreation.create(
    null,
    { username: 'ops', password: PASSWORD, role_uids: [2] },
    CLI_CONTEXT,
  ))!.uid;
  const token = await login(a, 'ops', PASSWORD);
  const started = await call(a, 'POST', `/v1/users/${ops}/mfa/totp`, { auth: token, body: {} });
  secret = started.body.secret;
  const verified = await call(a, 'POST', `/v1/users/${ops}/mfa/totp/verify`, {
    auth: token,
    body: { code: codeAt(secret, a.tessera.clock()) },
  });
  recovery = verified.body.recovery_codes;
  // The enrolment's code is taken: the next step's for the logins.
  a.advance(30);
  b.advance(31.1);
}, 60_000);
afterAll(async () => {
  await a?.close();
  await b?.close();
  await pg?.drop();
});

const firstStep = (node: TestTessera) =>
  call(node, 'POST', '/v1/users/authorize', { body: { username: 'ops', password: PASSWORD } });
const secondStep = (node: TestTessera, body: Record<string, unknown>) =>
  call(node, 'POST', '/v1/users/authorize/mfa', { body });

it("takes a login's second step on another node than its first", async () => {
  const first = await firstStep(a);
  expect(first.body.error_code).toBe('mfa_required');
  const second = await secondStep(b, { mfa_token: first.body.mfa_token, code: codeAt(secret, b.tessera.clock()) });
  expect(second.status).toBe(200);
});

it('refuses on B the code A took (and A the one B took)', async () => {
  a.advance(30);
  b.advance(30);
  const code = codeAt(secret, a.tessera.clock());
  const onA = await firstStep(a);
  expect((await secondStep(a, { mfa_token: onA.body.mfa_token, code })).status).toBe(200);
  const onB = await firstStep(b);
  const replayed = await secondStep(b, { mfa_token: onB.body.mfa_token, code });
  expect([replayed.status, replayed.body.error_code]).toEqual([401, 'invalid_mfa_code']);
});

it('takes a recovery code once across both nodes, and an mfa_token once', async () => {
  const onA = await firstStep(a);
  expect((await secondStep(a, { mfa_token: onA.body.mfa_token, recovery_code: recovery[0] })).status).toBe(200);
  const onB = await firstStep(b);
  const again = await secondStep(b, { mfa_token: onB.body.mfa_token, recovery_code: recovery[0] });
  expect([again.status, again.body.error_code]).toEqual([401, 'invalid_mfa_code']);
  expect((await secondStep(b, { mfa_token: onB.body.mfa_token, recovery_code: recovery[1] })).status).toBe(200);
  const spent = await secondStep(a, { mfa_token: onB.body.mfa_token, recovery_code: recovery[2] });
  expect([spent.status, spent.body.error_code]).toEqual([401, 'invalid_mfa_token']);
});

it('answers the same code at the same moment on both nodes once: one 200, one 401', async () => {
  a.advance(30);
  b.advance(30);
  const code = codeAt(secret, a.tessera.clock());
  const [onA, onB] = await Promise.all([firstStep(a), firstStep(b)]);
  const answers = await Promise.all([
    secondStep(a, { mfa_token: onA.body.mfa_token, code }),
    secondStep(b, { mfa_token: onB.body.mfa_token, code }),
  ]);
  expect(answers.map((r) => r.status).sort()).toEqual([200, 401]);
});

it('checks at most five answers of one mfa_token, however many arrive at once on both nodes (the lockout off)', async () => {
  await a.tessera.userCreation.create(
    null,
    { username: 'root', password: 'root-password-1', role: 'admin' },
    CLI_CONTEXT,
  );
  const policy = await call(a, 'PUT', '/v1/cluster/policy', {
    auth: a.basic('root', 'root-password-1'),
    body: { login_lockout_threshold: 0 },
  });
  expect(policy.status).toBe(200);
  a.advance(1.1);
  b.advance(1.1);
  const first = await firstStep(a);
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      secondStep(i % 2 ? a : b, { mfa_token: first.body.mfa_token, code: '000000' }),
    ),
  );
  const codes = answers.map((r) => r.body.error_code);
  expect(codes.filter((c) => c === 'invalid_mfa_code')).toHaveLength(5);
  expect(codes.filter((c) => c === 'invalid_mfa_token')).toHaveLength(15);
});
