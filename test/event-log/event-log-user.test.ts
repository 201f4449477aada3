import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_EVENTS } from '../../src/audit/audit-log.js';
import { EVENT_TYPES as LISTED } from '../../src/event-log/event-type-list.js';
import { EVENT_TYPES, EVENTS_DROPPED, eventTypeOf } from '../../src/event-log/event-types.js';
import { call, login } from '../helpers/http.js';
import { freshPostgres } from '../helpers/services.js';
import { type TestTessera, testTessera } from '../helpers/test-tessera.js';

interface Event {
  type: string;
  severity: string;
  uid?: number;
  username?: string;
  actor?: string;
}

it("the console's list of event types (event-type-list.ts, no imports) is the log's, in its order", () => {
  expect([...LISTED]).toEqual([...AUDIT_EVENTS.map(eventTypeOf), EVENTS_DROPPED]);
  expect(EVENT_TYPES).toEqual(LISTED);
});

describe.each(['sqlite', 'postgres'] as const)('GET /v1/logs?user=<name or email> on %s', (dialect) => {
  let t: TestTessera;
  let drop: (() => Promise<void>) | undefined;
  let admin: string;
  let ann: { uid: number };
  let bob: { uid: number };

  const logs = async (query: string, auth = admin) => {
    const res = await call(t, 'GET', `/v1/logs?limit=10000&${query}`, { auth });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as Event[];
  };
  /** type and the user it is about (or by), in order: what a filter found. */
  const seen = (events: Event[]) =>
    events.map((e) => `${e.type}${e.severity === 'WARNING' ? '!' : ''} ${e.username ?? '-'} by ${e.actor ?? '-'}`);

  beforeAll(async () => {
    const pg = dialect === 'postgres' ? await freshPostgres() : undefined;
    drop = pg?.drop;
    t = await testTessera({ ...(pg && { databaseUrl: pg.url }) });
    await t.addUser('root', 'root-password', 'admin');
    await t.addUser('viewer', 'viewer-password-1', 'cluster_viewer');
    admin = await login(t, 'root', 'root-password');
    const made = (body: Record<string, unknown>) => call(t, 'POST', '/v1/users', { auth: admin, body });
    ann = (
      await made({ name: 'Ann_Lee', email: 'ann@example.com', password: 'Ann-password-secret-1', role: 'user_manager' })
    ).body;
    bob = (await made({ email: 'bob@example.com', password: 'Bob-password-secret-1', role: 'db_viewer' })).body;
    // Ann signs in (by her email), and acts: she makes a user.
    const annToken = await login(t, 'ANN@example.com', 'Ann-password-secret-1');
    await call(t, 'POST', '/v1/users', {
      auth: annToken,
      body: { name: 'cara', password: 'Cara-password-secret-1', role: 'db_viewer' },
    });
    await call(t, 'PUT', `/v1/users/${ann.uid}`, { auth: admin, body: { role: 'db_member' } });
    // A refused login of a name no account has.
    await call(t, 'POST', '/v1/users/authorize', { body: { username: 'Ghost', password: 'wrong-password-secret' } });
  });
  afterAll(async () => {
    await t?.close();
    await drop?.();
  });

  it("finds a user's events by its email and by its name, in any case: about it and by it, nobody else's", async () => {
    const byEmail = await logs('user=ann@example.com');
    expect(seen(byEmail)).toEqual([
      'user_created Ann_Lee by root',
      'authorize Ann_Lee by Ann_Lee',
      'user_created cara by Ann_Lee',
      'user_updated Ann_Lee by root',
    ]);
    expect(byEmail.filter((e) => e.type !== 'user_created' || e.username === 'Ann_Lee').map((e) => e.uid)).toEqual([
      ann.uid,
      ann.uid,
      ann.uid,
    ]);
    expect(await logs('user=ANN_lee')).toEqual(byEmail);
    expect(await logs('user=%20Ann_Lee')).toEqual(byEmail); // as a login is spelt: outer space is none
    // With the other filters: all of them hold.
    expect(seen(await logs('user=ann@example.com&type=user_created&order=desc'))).toEqual([
      'user_created cara by Ann_Lee',
      'user_created Ann_Lee by root',
    ]);
    expect(seen(await logs(`user=ann@example.com&uid=${bob.uid}`))).toEqual([]);
    // A user whose username is its email.
    expect(seen(await logs('user=BOB@EXAMPLE.COM'))).toEqual(['user_created bob@example.com by root']);
  });

  it('finds accounts, not the names events recorded: a name nobody has (a refused login of it too) is [], never an error', async () => {
    // Found by type and time instead: matching recorded names would read every record of the log.
    expect(await logs('user=ghost')).toEqual([]);
    expect(seen(await logs('type=authorize')).filter((e) => e.includes('Ghost'))).toEqual(['authorize! Ghost by -']);
    expect(await logs('user=nobody-at-all')).toEqual([]);
    expect(await logs('user=nobody@example.com&type=user_deleted')).toEqual([]);
    // Taken literally: no wildcard of SQL's LIKE matches anyone.
    expect(await logs('user=%25')).toEqual([]);
    expect(await logs('user=Ann%5FLee')).not.toEqual([]); // "_" is a character of the name
    expect(await logs('user=Ann%25Lee')).toEqual([]);
    expect(await logs('user=Ann.Lee')).toEqual([]);
    expect(await logs('user=a%5Cn')).toEqual([]);
    expect(await logs('user=%22')).toEqual([]);
    expect(await logs(`user=${encodeURIComponent('"username":"ann_lee"')}`)).toEqual([]);
  });

  it("finds a deleted user by its name no more (its events stay, by uid): the name is nobody's", async () => {
    expect(await logs('user=Ann_Lee')).not.toEqual([]);
    expect((await call(t, 'DELETE', `/v1/users/${ann.uid}`, { auth: admin })).status).toBe(200);
    expect(await logs('user=ann_lee')).toEqual([]);
    expect(seen(await logs(`uid=${ann.uid}`))).toContain('user_deleted Ann_Lee by root');
  });

  it('is refused as a filter by another user to who may not see users; its own name it may give', async () => {
    const viewer = await login(t, 'viewer', 'viewer-password-1');
    const other = await call(t, 'GET', '/v1/logs?user=root', { auth: viewer });
    expect(other.status).toBe(403);
    expect(other.body.error_code).toBe('forbidden');
    const own = await logs('user=VIEWER', viewer);
    expect(own.map((e) => e.type)).toContain('authorize');
    expect(own.every((e) => e.username === undefined && e.actor === undefined)).toBe(true);
    // Its token outlives a rename, and its old name goes to an admin: the name still gives its own events alone.
    const viewerUid = (await call(t, 'GET', '/v1/users', { auth: admin })).body.find(
      (u: { name: string }) => u.name === 'viewer',
    ).uid as number;
    expect(
      (await call(t, 'PUT', `/v1/users/${viewerUid}`, { auth: admin, body: { name: 'viewer-renamed' } })).status,
    ).toBe(200);
    const heir = await call(t, 'POST', '/v1/users', {
      auth: admin,
      body: { name: 'viewer', password: 'Heir-password-secret-1', role: 'admin' },
    });
    expect(heir.status).toBe(200);
    await call(t, 'POST', '/v1/roles', {
      auth: await login(t, 'viewer', 'Heir-password-secret-1'),
      body: { name: 'SecretOps', management: 'admin' },
    });
    const stale = await logs('user=viewer', viewer);
    expect(stale.length).toBeGreaterThan(0);
    // The same as by its uid, and none of the heir's (its creation, its sign-in, its role).
    expect(stale).toEqual(await logs(`uid=${viewerUid}`, viewer));
    expect(stale.map((e) => e.type)).not.toContain('role_create');
    expect(stale.filter((e) => e.type === 'authorize')).toHaveLength(own.filter((e) => e.type === 'authorize').length);
  });

  it('is a parameter of the OpenAPI document, and bounded', async () => {
    const doc = (await call(t, 'GET', '/v1/openapi.json')).body;
    const params = doc.paths['/v1/logs'].get.parameters as { name: string; in: string; description?: string }[];
    const user = params.find((p) => p.name === 'user' && p.in === 'query');
    expect(user?.description ?? JSON.stringify(user)).toMatch(/name or email/);
    expect((await call(t, 'GET', '/v1/logs?user=', { auth: admin })).status).toBe(400);
    expect((await call(t, 'GET', `/v1/logs?user=${'a'.repeat(257)}`, { auth: admin })).status).toBe(400);
    expect(await logs('user=%00')).toEqual([]);
  });
});
