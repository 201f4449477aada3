import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertionOf, decodeAnswer, signAssertion, unsigned, unsolicited } from '../helpers/saml-forge.js';
import { freshPostgres, freshRedisPrefix, REDIS_URL } from '../helpers/services.js';
import { simpleSamlPhpHere } from '../helpers/simplesamlphp.js';
import {
  ADDRESS,
  browserAt,
  exchange,
  loginUrl,
  postAnswer,
  type SsoCluster,
  ssoCluster,
  startSignIn,
} from '../helpers/sso-cluster.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

const here = simpleSamlPhpHere();

/** Two nodes over one PostgreSQL (and Redis): any node takes any step of a sign-in, and each step happens once across both. */
describe.runIf(here)('SSO on two nodes (PostgreSQL, Redis)', () => {
  let pg: { url: string; drop(): Promise<void> };
  let c: SsoCluster;
  let a: TestTessera;
  let b: TestTessera;

  beforeAll(async () => {
    pg = await freshPostgres();
    const shared = { databaseUrl: pg.url, redisUrl: REDIS_URL, redisKeyPrefix: freshRedisPrefix(), publicUrl: ADDRESS };
    a = await testTessera(shared);
    b = await testTessera(shared);
    c = await ssoCluster(
      [{ username: 'alice', password: 'alice-pw', email: 'alice@example.com', roles: ['3'] }],
      {},
      a,
    );
    b.advance(1.1); // b's copy of the settings a changed is at most a second old
  }, 60_000);
  afterAll(async () => {
    await c?.close();
    await a?.close();
    await b?.close();
    await pg?.drop();
  });

  it('answers a request one node sent on the other, and hands the sign-in over on either', async () => {
    const { url, start } = await startSignIn(a);
    const answer = await browserAt(c).signIn(url, 'alice', 'alice-pw');
    const { location, cookie } = await postAnswer(b, answer.SAMLResponse);
    expect(location).toBe('/?sso=signed_in');
    const token = await exchange(a, [cookie, start]);
    expect(token.statusCode, token.body).toBe(200);
    expect((await exchange(b, [cookie, start])).statusCode).toBe(401); // once, across nodes
  });

  it('lets one node consume an assertion and the other refuse it, 10 times, also when both get it at once', async () => {
    for (let round = 0; round < 10; round++) {
      const answer = signAssertion(
        unsolicited(
          unsigned(decodeAnswer((await browserAt(c).signIn(await loginUrl(a), 'alice', 'alice-pw')).SAMLResponse)),
        ),
        c.idp,
      );
      expect(assertionOf(decodeAnswer(answer)).getAttribute('ID')).toMatch(/^_/);
      const results = await Promise.all([postAnswer(a, answer), postAnswer(b, answer)]);
      expect(results.map((r) => r.location).sort(), `round ${round}`).toEqual([
        '/?sso=signed_in',
        '/?sso_error=sso_refused',
      ]);
      expect((await postAnswer(round % 2 ? a : b, answer)).location).toBe('/?sso_error=sso_refused');
    }
  });
});
