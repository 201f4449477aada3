import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventHub } from '../../src/events.js';
import { DEFAULT_POLICY } from '../../src/policy/policy.js';
import { KyselyPolicyStore } from '../../src/policy/policy-store.js';
import { KyselyRoleStore } from '../../src/roles/kysely-role-store.js';
import { type Db, openDatabase } from '../../src/store/database.js';
import { migrationsFor } from '../../src/store/migrations/index.js';
import { KyselyKeyStore } from '../../src/tokens/kysely-key-store.js';
import { KyselyRevocationStore } from '../../src/tokens/revocation-store.js';
import { KyselyUserStore } from '../../src/users/kysely-user-store.js';
import { freshPostgres } from '../helpers/services.js';

/** One suite, run once per dialect: the queries are the same, the databases are real. */
describe.each(['sqlite', 'postgres'] as const)('store on %s', (dialect) => {
  let db: Db;
  let where: { dataDir: string; databaseUrl?: string };
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-store-'));
    if (dialect === 'postgres') {
      const pg = await freshPostgres();
      where = { dataDir, databaseUrl: pg.url };
      cleanup = pg.drop;
    } else {
      where = { dataDir };
      cleanup = async () => rmSync(dataDir, { recursive: true, force: true });
    }
    db = await openDatabase(where);
  });
  afterEach(async () => {
    await db.destroy();
    await cleanup();
  });

  const newUser = (name: string, roleUids: number[] = []) => ({
    name,
    email: null,
    roleUids,
    authMethod: 'regular' as const,
    emailAlerts: true,
    clusterEmailAlerts: false,
    bdbsEmailAlerts: null,
    passwordHash: `$argon2id$fake-${name}`,
    passwordIssueDate: new Date('2026-01-01T00:00:00Z'),
  });

  it('migrates once, however often and however concurrently it is opened', async () => {
    const again = await Promise.all([openDatabase(where), openDatabase(where), openDatabase(where)]);
    for (const other of again) await other.destroy();
    const rows = await db
      .selectFrom('tessera_migrations' as never)
      .selectAll()
      .execute();
    expect(rows).toHaveLength(Object.keys(migrationsFor(dialect)).length);
  });

  it('moves last_login forward only: a late write from another node does not move it back', async () => {
    const users = new KyselyUserStore(db, new EventHub());
    const { uid } = await users.create(newUser('late'));
    await users.recordLogin(uid, new Date('2026-11-25T10:00:00Z'));
    await users.recordLogin(uid, new Date('2026-11-25T09:59:00Z'));
    expect((await users.getByUid(uid))?.lastLogin).toEqual(new Date('2026-11-25T10:00:00Z'));
    await users.recordLogin(uid, new Date('2026-11-25T10:01:00Z'));
    expect((await users.getByUid(uid))?.lastLogin).toEqual(new Date('2026-11-25T10:01:00Z'));
  });

  it('makes roles with a uid asked for and then without one (the sequence moves past it), names compared with their case', async () => {
    const roles = new KyselyRoleStore(db);
    expect(await roles.create({ uid: 500, name: 'Chosen', management: 'db_viewer' })).toMatchObject({ uid: 500 });
    const made = await Promise.all([
      roles.create({ name: 'admin', management: 'admin' }),
      roles.create({ name: 'Next', management: 'none' }),
    ]);
    expect(made.map((r) => r.uid).every((uid) => uid > 500)).toBe(true);
    await expect(roles.create({ name: 'Admin', management: 'admin' })).rejects.toMatchObject({
      code: 'name_already_exists',
    });
    await expect(roles.create({ uid: 500, name: 'Again', management: 'none' })).rejects.toMatchObject({
      code: 'uid_already_exists',
    });
  });

  it('creates users with unique normalized names and reads them back', async () => {
    const users = new KyselyUserStore(db, new EventHub());
    expect(await users.hasUsers()).toBe(false);
    const alice = await users.create(newUser('Alice'));
    expect(alice).toMatchObject({
      uid: expect.any(Number),
      username: 'Alice',
      roleUids: [],
      rights: ['none'],
      tokenEpoch: 0,
      lockedUntil: null,
    });
    await expect(users.create(newUser('ＡＬＩＣＥ'))).rejects.toMatchObject({ code: 'name_already_exists' });
    expect((await users.findByUsername('alice'))!.uid).toBe(alice.uid);
    expect(await users.count()).toBe(1);
    expect(await users.hasUsers()).toBe(true);
    expect(await users.countAdmins()).toBe(0);
    const cred = await users.findCredential('ALICE');
    expect(cred!.passwords.map((p) => p.hash)).toEqual(['$argon2id$fake-Alice']);
  });

  it('keeps passwords apart and raises the token epoch on revoking changes, with an event', async () => {
    const events = new EventHub();
    const users = new KyselyUserStore(db, events);
    const revocations = new KyselyRevocationStore(db);
    const revoked: number[] = [];
    events.on('tokensRevoked', (uid) => revoked.push(uid));
    const { uid } = await users.create(newUser('bob'));
    const last = await revocations.lastEventId();

    await users.addPassword(uid, '$argon2id$second', new Date());
    expect((await users.getCredential(uid))!.passwords).toHaveLength(2);
    expect(await revocations.tokenEpoch(uid)).toBe(0);

    await users.replacePasswords(uid, '$argon2id$third', new Date('2026-02-01T00:00:00Z'));
    const after = await users.getCredential(uid);
    expect(after!.passwords.map((p) => p.hash)).toEqual(['$argon2id$third']);
    expect(after!.user.passwordIssueDate.toISOString()).toBe('2026-02-01T00:00:00.000Z');
    expect(await revocations.tokenEpoch(uid)).toBe(1);

    expect(await users.lock(uid, new Date('2030-01-01'), new Date())).toBe(true); // not revoking: see UserStore
    expect(await users.lock(uid, new Date('2030-01-01'), new Date())).toBe(false);
    expect(await revocations.tokenEpoch(uid)).toBe(1);
    await users.updateProfile(uid, { roleUids: [1] });
    await users.updateProfile(uid, { name: 'Bob' });
    expect(await revocations.tokenEpoch(uid)).toBe(2);
    expect(revoked).toEqual([uid, uid]);

    const written = await revocations.eventsAfter(last, 100);
    expect(written.map((e) => e.uid)).toEqual([uid, uid]);
    // The store keeps the cluster an admin: bob, the only one, goes once another is there.
    await expect(users.delete(uid)).rejects.toMatchObject({ code: 'delete_last_admin_not_allowed' });
    await users.create({ ...newUser('carol'), roleUids: [1] });
    expect(await users.delete(uid)).toBe(true);
    expect(await revocations.tokenEpoch(uid)).toBeUndefined();
    expect(await users.getCredential(uid)).toBeUndefined();
  });

  it('keeps revoked token ids until they expire', async () => {
    const revocations = new KyselyRevocationStore(db);
    const now = new Date('2026-06-01T00:00:00Z');
    await revocations.revokeToken('jti-live', new Date(now.getTime() + 60_000));
    await revocations.revokeToken('jti-dead', new Date(now.getTime() - 1));
    expect((await revocations.liveTokens(now)).map((e) => e.jti)).toEqual(['jti-live']);
    await revocations.prune(now, now);
    expect((await revocations.eventsAfter(0, 10)).map((e) => e.jti)).toEqual(['jti-live']);
  });

  it('stores the policy', async () => {
    const policy = new KyselyPolicyStore(db);
    expect(await policy.get()).toEqual(DEFAULT_POLICY);
    await policy.update(() => ({ password_min_length: 20 }));
    expect(await policy.update((p) => ({ password_min_length: p.password_min_length + 1 }))).toMatchObject({
      before: { password_min_length: 20 },
      after: { password_min_length: 21 },
    });
    expect((await policy.get()).password_min_length).toBe(21);
  });

  it('keeps every change of the policy made at once from several nodes (no read-modify-write lost)', async () => {
    const dbs = dialect === 'postgres' ? await Promise.all([1, 2, 3].map(() => openDatabase(where))) : [];
    const handles = dialect === 'postgres' ? dbs : [db, db, db];
    try {
      await new KyselyPolicyStore(db).update(() => ({ kept_cluster: {} }));
      // 30 changes, each adding one field to what it reads: a change made on a stale read would drop others.
      await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          new KyselyPolicyStore(handles[i % 3]!).update((p) => ({ kept_cluster: { ...p.kept_cluster, [`f${i}`]: i } })),
        ),
      );
      expect(Object.keys((await new KyselyPolicyStore(db).get()).kept_cluster)).toHaveLength(30);
    } finally {
      for (const other of dbs) await other.destroy();
    }
  });

  it('adds the first key once when processes start together', async () => {
    // PostgreSQL: three pools, as three nodes have. SQLite: one connection, as each process
    // has (better-sqlite3 waits for a lock synchronously, so two in one process would stall).
    const dbs = dialect === 'postgres' ? await Promise.all([1, 2, 3].map(() => openDatabase(where))) : [];
    const handles = dialect === 'postgres' ? dbs : [db, db, db];
    try {
      const key = (kid: string) => ({
        kid,
        alg: 'EdDSA' as const,
        publicJwk: { kty: 'OKP', crv: 'Ed25519', x: kid },
        privateKey: '{}',
        state: 'active' as const,
        createdAt: new Date(),
        activateAt: null,
        retiredAt: null,
      });
      const won = await Promise.all(handles.map((h, i) => new KyselyKeyStore(h).addFirst(key(`k${i}`))));
      expect(won.filter(Boolean)).toHaveLength(1);
      expect(await new KyselyKeyStore(db).listPublished(new Date(0))).toHaveLength(1);
    } finally {
      for (const other of dbs) await other.destroy();
    }
  });

  it('activates a staged key once, retiring the active one', async () => {
    const keys = new KyselyKeyStore(db);
    const key = (kid: string, state: 'next' | 'active', activateAt: Date | null) => ({
      kid,
      alg: 'EdDSA' as const,
      publicJwk: { kty: 'OKP', crv: 'Ed25519', x: kid },
      privateKey: '{}',
      state,
      createdAt: new Date(),
      activateAt,
      retiredAt: null,
    });
    await keys.add(key('old', 'active', null));
    await keys.add(key('new', 'next', new Date('2026-01-01T00:00:10Z')));
    expect(await keys.activateDue(new Date('2026-01-01T00:00:05Z'))).toBe(false);
    const results = await Promise.all([1, 2, 3].map(() => keys.activateDue(new Date('2026-01-01T00:00:11Z'))));
    expect(results.filter(Boolean)).toHaveLength(1);
    const published = await keys.listPublished(new Date('2025-12-31T00:00:00Z'));
    expect(Object.fromEntries(published.map((k) => [k.kid, k.state]))).toEqual({ old: 'retired', new: 'active' });
    expect(await keys.listPublished(new Date('2026-01-02T00:00:00Z'))).toHaveLength(1);
  });
});
