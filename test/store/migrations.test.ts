import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { KyselyEventLog } from '../../src/event-log/kysely-event-log.js';
import { EventHub } from '../../src/events.js';
import { KyselyRoleStore } from '../../src/roles/kysely-role-store.js';
import { openDatabase } from '../../src/store/database.js';
import { BUILT_IN_ROLES } from '../../src/store/migrations/0002-roles-and-user-object.js';
import { type Dialect, migrationsFor } from '../../src/store/migrations/index.js';
import { KyselyUserStore } from '../../src/users/kysely-user-store.js';
import { freshPostgres } from '../helpers/services.js';

/** The real migrations, with the first one stopped half-way, as a process killed mid-way is. */
function interrupted(dialect: Dialect) {
  const real = migrationsFor(dialect)['0001-initial']!;
  return {
    '0001-initial': {
      async up(db: Parameters<typeof real.up>[0]) {
        await real.up(db); // every table made...
        throw new Error('interrupted'); // ...and then the process is gone
      },
    },
  };
}

describe.each(['sqlite', 'postgres'] as const)('schema migrations on %s', (dialect) => {
  it('apply in one transaction: one stopped half-way leaves nothing, and the next open completes it', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-migrate-'));
    const pg = dialect === 'postgres' ? await freshPostgres() : undefined;
    const where = { dataDir, databaseUrl: pg?.url };
    try {
      await expect(openDatabase(where, interrupted)).rejects.toThrow('interrupted');
      const db = await openDatabase(where);
      try {
        const users = await db.selectFrom('users').select('uid').execute();
        expect(users).toEqual([]);
        const applied = await sql<{ name: string }>`select name from tessera_migrations`.execute(db);
        expect(applied.rows.map((r) => r.name)).toEqual(Object.keys(migrationsFor(dialect)));
      } finally {
        await db.destroy();
      }
    } finally {
      await pg?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('schema migrations on postgres, beside another store in the same database', () => {
  it("keep their own bookkeeping tables in the connection's schema, not those of another schema", async () => {
    const [first, second] = [await freshPostgres(), await freshPostgres()];
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-migrate-'));
    try {
      await (await openDatabase({ dataDir, databaseUrl: first.url })).destroy();
      // The first schema now holds tessera_migrations_lock; the second must make its own.
      const db = await openDatabase({ dataDir, databaseUrl: second.url });
      try {
        const applied = await sql<{ name: string }>`select name from tessera_migrations`.execute(db);
        expect(applied.rows.map((r) => r.name)).toEqual(Object.keys(migrationsFor('postgres')));
        const own = await sql<{
          n: number;
        }>`select count(*)::int as n from information_schema.tables where table_schema = current_schema() and table_name like 'tessera_migrations%'`.execute(
          db,
        );
        expect(own.rows[0]!.n).toBe(2);
      } finally {
        await db.destroy();
      }
    } finally {
      await first.drop();
      await second.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the SQLite store on disk', () => {
  it('is for its owner alone, also in a folder that existed with a looser mode', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-mode-'));
    chmodSync(dataDir, 0o755);
    try {
      const db = await openDatabase({ dataDir });
      await db.destroy();
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      for (const name of readdirSync(dataDir))
        expect([name, statSync(path.join(dataDir, name)).mode & 0o777]).toEqual([name, 0o600]);
      chmodSync(path.join(dataDir, 'tessera.db'), 0o644); // loosened later by hand
      await (await openDatabase({ dataDir })).destroy();
      expect(statSync(path.join(dataDir, 'tessera.db')).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe.each(['sqlite', 'postgres'] as const)(
  "an existing store on %s moves to the product's user model in place",
  (dialect) => {
    it('makes e-mail-shaped usernames the email (the display name stays the name when free), others the name; adds the built-in roles', async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-migrate-'));
      const pg = dialect === 'postgres' ? await freshPostgres() : undefined;
      const where = { dataDir, databaseUrl: pg?.url };
      const onlyFirst = (d: Dialect) => ({ '0001-initial': migrationsFor(d)['0001-initial']! });
      try {
        const old = await openDatabase(where, onlyFirst);
        const row = (username: string, name: string | null, role: string) => ({
          username,
          username_key: username.toLowerCase(),
          name,
          role,
          password_issue_date: '2026-01-01T00:00:00.000Z',
          created_at: '2026-01-01T00:00:00.000Z',
        });
        await old
          .insertInto('users')
          .values([
            row('admin@tessera.local', 'Administrator', 'admin'),
            row('ops', 'Operations', 'db_member'),
            row('ann@example.com', 'ops', 'none'), // her display name is another user's login: dropped
            row('bob@example.com', null, 'db_viewer'),
          ] as never)
          .execute();
        await old
          .insertInto('user_passwords')
          .values({ uid: 2, hash: '$argon2id$old', created_at: '2026-01-01T00:00:00.000Z' })
          .execute();
        await old.destroy();

        const db = await openDatabase(where);
        try {
          const users = await new KyselyUserStore(db, new EventHub()).list();
          // Their level became the built-in role of that level (0010).
          expect(users.map((u) => [u.name, u.email, u.rights[0], u.roleUids, u.username])).toEqual([
            ['Administrator', 'admin@tessera.local', 'admin', [1], 'Administrator'],
            ['ops', null, 'db_member', [4], 'ops'],
            [null, 'ann@example.com', 'none', [6], 'ann@example.com'],
            [null, 'bob@example.com', 'db_viewer', [5], 'bob@example.com'],
          ]);
          const store = new KyselyUserStore(db, new EventHub());
          expect((await store.findByUsername('ADMIN@tessera.local'))!.uid).toBe(1);
          expect((await store.findByUsername('administrator'))!.uid).toBe(1);
          expect((await store.findCredential('ops'))!.passwords.map((p) => p.hash)).toEqual(['$argon2id$old']);
          expect((await new KyselyRoleStore(db).list()).map((r) => r.management)).toEqual([
            'admin',
            'cluster_member',
            'cluster_viewer',
            'db_member',
            'db_viewer',
            'none',
            'user_manager',
            'token_verifier',
          ]);
        } finally {
          await db.destroy();
        }
      } finally {
        await pg?.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  },
);

describe.each(['sqlite', 'postgres'] as const)(
  'an existing store on %s moves to one identity per account (0005)',
  (dialect) => {
    it('keys logins as a directory compares them: the first row keeps a name, a local user keeps its old key, a shadowed directory row goes', async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-migrate-5-'));
      const pg = dialect === 'postgres' ? await freshPostgres() : undefined;
      const where = { dataDir, databaseUrl: pg?.url };
      const upTo4 = (d: Dialect) =>
        Object.fromEntries(Object.entries(migrationsFor(d)).filter(([name]) => name < '0005'));
      try {
        const old = await openDatabase(where, upTo4);
        const oldKey = (s: string) => s.normalize('NFKC').toLowerCase().normalize('NFKC');
        const row = (name: string, realm = 'local', keyOf = oldKey) => ({
          username: name,
          username_key: keyOf(name),
          name,
          name_key: keyOf(name),
          role: 'db_viewer',
          realm,
          password_issue_date: '2026-01-01T00:00:00.000Z',
          created_at: '2026-01-01T00:00:00.000Z',
        });
        const directory = (name: string) => row(name, 'ldap', (s) => `ldap:${oldKey(s)}`);
        await old
          .insertInto('users')
          .values([
            row('Ops  Team'), // 1: runs of spaces, older
            row('ops team'), // 2: already as keys are now: keeps its key, and wins it
            directory('alice'), // 3: a directory user: keyed by its name now
            directory('alice '), // 4: another row for the same person: goes
            directory('ops team'), // 5: a name a local user has: goes
            row('Carol'), // 6: nothing changes
          ] as never)
          .execute();
        await old.destroy();

        const db = await openDatabase(where);
        try {
          const store = new KyselyUserStore(db, new EventHub());
          const rows = await db
            .selectFrom('users')
            .select(['uid', 'name', 'name_key', 'realm'])
            .orderBy('uid')
            .execute();
          expect(rows).toEqual([
            { uid: 1, name: 'Ops  Team', name_key: 'ops  team', realm: 'local' },
            { uid: 2, name: 'ops team', name_key: 'ops team', realm: 'local' },
            { uid: 3, name: 'alice', name_key: 'alice', realm: 'ldap' },
            { uid: 6, name: 'Carol', name_key: 'carol', realm: 'local' },
          ]);
          expect((await store.findByUsername(' OPS   team '))!.uid).toBe(2);
          expect((await store.findByUsername('Alice '))!.uid).toBe(3);
          // The removed rows' tokens end everywhere.
          const events = await db.selectFrom('revocations').select('uid').execute();
          expect(events.map((e) => e.uid).sort()).toEqual([4, 5]);
        } finally {
          await db.destroy();
        }
      } finally {
        await pg?.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  },
);

describe.each(['sqlite', 'postgres'] as const)('an existing store on %s moves to role_uids alone (0010)', (dialect) => {
  it("turns a user's own level into the built-in role of that level, and moves a built-in role given another level aside: nobody gains or loses a right", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-migrate-10-'));
    const pg = dialect === 'postgres' ? await freshPostgres() : undefined;
    const where = { dataDir, databaseUrl: pg?.url };
    const upTo9 = (d: Dialect) =>
      Object.fromEntries(Object.entries(migrationsFor(d)).filter(([name]) => name < '0010'));
    try {
      const old = await openDatabase(where, upTo9);
      const row = (name: string, role: string) => ({
        username: name,
        username_key: name,
        name,
        name_key: name,
        role,
        password_issue_date: '2026-01-01T00:00:00.000Z',
        created_at: '2026-01-01T00:00:00.000Z',
      });
      await old
        .insertInto('users')
        .values([
          row('first', 'admin'),
          row('mixed', 'db_viewer'),
          row('custom', 'none'),
          row('bare', 'none'),
          row('helpdesk', 'none'),
          row('demoted', 'cluster_viewer'),
        ] as never)
        .execute();
      await old
        .insertInto('roles')
        .values({ uid: 101, name: 'Ops', name_key: 'Ops', management: 'cluster_member' })
        .execute();
      // What the old rules let a cluster do: a built-in role given another level (and a name), …
      await old
        .updateTable('roles')
        .set({ name: 'Helpdesk (read-only)', name_key: 'Helpdesk (read-only)', management: 'db_viewer' })
        .where('uid', '=', 7)
        .execute();
      // …the Admin role made a viewer's, and the None role an admin's (held by nobody).
      await old.updateTable('roles').set({ management: 'cluster_viewer' }).where('uid', '=', 1).execute();
      await old.updateTable('roles').set({ management: 'admin' }).where('uid', '=', 6).execute();
      await old
        .insertInto('user_roles')
        .values([
          { uid: 2, role_uid: 101 },
          { uid: 3, role_uid: 101 },
          { uid: 5, role_uid: 7 },
          { uid: 6, role_uid: 1 },
        ])
        .execute();
      await old
        .insertInto('ldap_mappings')
        .values({ name: 'Desk', name_key: 'desk', dn: 'cn=desk,dc=example', role_uids: '[7,3]' })
        .execute();
      await old.destroy();

      const db = await openDatabase(where);
      try {
        const roles = await new KyselyRoleStore(db).list();
        const byName = (name: string) => roles.find((r) => r.name === name)!;
        // The built-in roles are their level again, under their names; the cluster's uses of them are roles of its own.
        expect(roles.filter((r) => r.uid <= 8).map((r) => [r.uid, r.name, r.management])).toEqual(
          BUILT_IN_ROLES.map((r) => [r.uid, r.name, r.management]),
        );
        expect(byName('Helpdesk (read-only)')).toMatchObject({ management: 'db_viewer' });
        expect(byName('Admin (cluster_viewer)')).toMatchObject({ management: 'cluster_viewer' });
        expect(byName('None (admin)')).toMatchObject({ management: 'admin' });
        const desk = byName('Helpdesk (read-only)').uid;
        const viewerAdmin = byName('Admin (cluster_viewer)').uid;
        const users = await new KyselyUserStore(db, new EventHub()).list();
        expect(users.map((u) => [u.name, u.roleUids, u.rights])).toEqual([
          ['first', [1], ['admin']], // the first admin reads [1], as on a real cluster
          ['mixed', [5, 101], ['cluster_member', 'db_viewer']], // its own level kept, as a role
          ['custom', [101], ['cluster_member']], // 'none' beside roles adds nothing
          ['bare', [6], ['none']],
          ['helpdesk', [desk], ['db_viewer']], // not a user_manager now
          ['demoted', [3, viewerAdmin], ['cluster_viewer']], // not an admin now
        ]);
        expect(await new KyselyUserStore(db, new EventHub()).countAdmins()).toBe(1);
        const [mapping] = await db.selectFrom('ldap_mappings').select('role_uids').execute();
        expect(JSON.parse(mapping!.role_uids)).toEqual([desk, 3]);
        const moved = await db.selectFrom('event_log').select(['type', 'record']).execute();
        expect(moved.map((e) => e.type)).toEqual(['role_create', 'role_create', 'role_create']);
        expect(moved.map((e) => e.record).join()).toMatch(/built-in role 7 had management db_viewer/);
      } finally {
        await db.destroy();
      }
    } finally {
      await pg?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe.each(['sqlite', 'postgres'] as const)(
  'an existing store on %s names its events as the product does (0011)',
  (dialect) => {
    it('reads a cluster settings change kept as policy_update back as cluster_updated, found by that type; other rows as they were', async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-migrate-11-'));
      const pg = dialect === 'postgres' ? await freshPostgres() : undefined;
      const where = { dataDir, databaseUrl: pg?.url };
      const upTo10 = (d: Dialect) =>
        Object.fromEntries(Object.entries(migrationsFor(d)).filter(([name]) => name < '0011'));
      try {
        const old = await openDatabase(where, upTo10);
        const row = (time: string, type: string, changes: string[]) => ({
          time,
          type,
          severity: 'INFO',
          uid: null,
          actor_uid: 1,
          record: JSON.stringify({ outcome: 'success', actor_uid: 1, actor: 'root', target: 'policy', changes }),
        });
        await old
          .insertInto('event_log')
          .values([
            row('2026-11-20T10:00:00.000Z', 'policy_update', ['password_min_length']),
            row('2026-11-20T10:00:01.000Z', 'role_update', ['name']),
            row('2026-11-20T10:00:02.000Z', 'user_created', []),
            row('2026-11-20T10:00:03.000Z', 'policy_update', ['login_lockout_threshold']),
          ])
          .execute();
        await old.destroy();

        const db = await openDatabase(where);
        try {
          const log = new KyselyEventLog(db);
          const all = await log.query({ order: 'asc', limit: 10, offset: 0 });
          expect(all.map((e) => e.type)).toEqual(['cluster_updated', 'role_update', 'user_created', 'cluster_updated']);
          const found = await log.query({ order: 'asc', limit: 10, offset: 0, type: 'cluster_updated' });
          expect(found).toEqual([
            expect.objectContaining({ time: '2026-11-20T10:00:00Z', actor: 'root', changes: ['password_min_length'] }),
            expect.objectContaining({ time: '2026-11-20T10:00:03Z', changes: ['login_lockout_threshold'] }),
          ]);
          expect(await log.query({ order: 'asc', limit: 10, offset: 0, type: 'policy_update' })).toEqual([]);
        } finally {
          await db.destroy();
        }
      } finally {
        await pg?.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  },
);

describe.each(['sqlite', 'postgres'] as const)("an existing store on %s takes a role's resources (0012)", (dialect) => {
  it('keeps every role for every database, and then stores, reads and merges the databases a role is limited to', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-migrate-12-'));
    const pg = dialect === 'postgres' ? await freshPostgres() : undefined;
    const where = { dataDir, databaseUrl: pg?.url };
    const before12 = (d: Dialect) =>
      Object.fromEntries(Object.entries(migrationsFor(d)).filter(([name]) => name < '0012'));
    try {
      const old = await openDatabase(where, before12);
      await old
        .insertInto('roles')
        .values({ uid: 150, name: 'Readers', name_key: 'Readers', management: 'db_viewer' } as never)
        .execute();
      await old
        .insertInto('users')
        .values({
          name: 'ann',
          name_key: 'ann',
          username: 'ann',
          username_key: 'ann',
          password_issue_date: '2026-01-01T00:00:00.000Z',
          created_at: '2026-01-01T00:00:00.000Z',
        } as never)
        .execute();
      await old.insertInto('user_roles').values({ uid: 1, role_uid: 150 }).execute();
      await old.destroy();

      const db = await openDatabase(where);
      try {
        const roles = new KyselyRoleStore(db);
        const users = new KyselyUserStore(db, new EventHub());
        expect((await roles.list()).every((r) => r.resources.length === 0)).toBe(true);
        expect((await users.getByUid(1))!.resources).toEqual([]);
        expect(await roles.update(150, { resources: [{ type: 'db', uids: ['1', '2'] }] })).toBe(true);
        expect(await roles.update(150, { resources: [{ type: 'db', uids: ['1', '2'] }] })).toBe(false); // the same
        const made = await roles.create({
          name: 'Writers',
          management: 'db_member',
          resources: [{ type: 'db', uids: ['7'] }],
        });
        await db.insertInto('user_roles').values({ uid: 1, role_uid: made.uid }).execute();
        expect((await roles.get(150))!.resources).toEqual([{ type: 'db', uids: ['1', '2'] }]);
        const ann = (await users.getByUid(1))!;
        expect([ann.rights, ann.resources]).toEqual([
          ['db_member', 'db_viewer'],
          [
            { management: 'db_member', type: 'db', uids: ['7'] },
            { management: 'db_viewer', type: 'db', uids: ['1', '2'] },
          ],
        ]);
        // The built-in DB Viewer beside it: db_viewer on every database, no entry limits it.
        await db.insertInto('user_roles').values({ uid: 1, role_uid: 5 }).execute();
        expect((await users.getByUid(1))!.resources).toEqual([{ management: 'db_member', type: 'db', uids: ['7'] }]);
        expect(await roles.update(150, { resources: [] })).toBe(true);
        const row = await db.selectFrom('roles').select('resources').where('uid', '=', 150).executeTakeFirstOrThrow();
        expect(row.resources).toBeNull();
      } finally {
        await db.destroy();
      }
    } finally {
      await pg?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
